import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SessionError } from '../../../harness/session/session-error.js';
import { loadSession } from '../../../harness/session/session-reader.js';
import { resumeSession } from '../../../harness/session/session-store.js';
import { createSessionWriter } from '../../../harness/session/session-writer.js';
import type { SessionPayload } from '../../../shared/session-format.js';
import { assistant, usage, userText } from '../../support/session-fixtures.js';
import { type TempDir, tempDir } from '../../support/temp-dir.js';

/**
 * Session format version 2 grows by new line kinds without a new number (`notice` was the first):
 * a log with them and one without load alike, and a reader skips a well-formed line of a kind it
 * does not know, keeping the conversation whole around it, so an older Skate reads a newer one's log.
 */
const denied: SessionPayload = {
  type: 'notice',
  event: {
    type: 'network_denied',
    agent: [],
    host: 'refused.test',
    port: 443,
    reason: 'not_allowed',
    at: '',
  },
};

/** A closed v2 log: a prompt, a reply, then (optionally) a notice, then a second prompt and reply. */
async function logOf(dir: TempDir, notice: boolean): Promise<string> {
  const writer = await createSessionWriter({ workspace: dir.path, model: 'm', policy: 'execute' });
  writer.userMessage(userText('first'));
  writer.assistantMessage(assistant({ type: 'text', text: 'one' }), usage(1, 1), 'm');
  if (notice) writer.append(denied);
  writer.userMessage(userText('second'));
  writer.assistantMessage(assistant({ type: 'text', text: 'two' }), usage(1, 1), 'm');
  await writer.close();
  return writer.file;
}

function texts(messages: readonly { content: readonly { type: string; text?: string }[] }[]): string[] {
  return messages.flatMap((message) => message.content.flatMap((block) => (block.text ? [block.text] : [])));
}

describe('session format 2: forward-compatible lines', () => {
  it('a v2 log without notices and one with them load, and resume, alike', async () => {
    await using dir = await tempDir();
    for (const notice of [false, true]) {
      const file = await logOf(dir, notice);
      const loaded = await loadSession(file);
      expect(loaded.fileVersion).toBe(2);
      expect(loaded.warnings).toEqual([]);
      expect(texts(loaded.conversationAt())).toEqual(['first', 'one', 'second', 'two']);
      const id = loaded.header.id;
      const resumed = await resumeSession(dir.path, id);
      expect(texts(resumed.messages)).toEqual(['first', 'one', 'second', 'two']);
      expect(resumed.notices.map((n) => n.notice.type)).toEqual(notice ? ['notice'] : []);
      await resumed.writer.close();
    }
  });

  it('a line of a kind this Skate does not know is skipped with a warning; the events after it keep their place', async () => {
    await using dir = await tempDir();
    const file = await logOf(dir, true);
    // A newer Skate's kind where the notice was: same envelope, a payload this one has never seen.
    const lines = (await readFile(file, 'utf8')).split('\n');
    const at = lines.findIndex((line) => line.includes('"type":"notice"'));
    const newer = JSON.parse(lines[at] as string) as { id: string; parentId: string };
    lines[at] = JSON.stringify({ ...newer, payload: { type: 'checkpoint', files: ['a.ts'] } });
    await writeFile(file, lines.join('\n'));
    const loaded = await loadSession(file);
    expect(loaded.warnings).toEqual([
      `${file}: skipped 1 line(s) of a kind this Skate does not read (checkpoint: from a newer Skate); the conversation loads without them`,
    ]);
    expect(texts(loaded.conversationAt())).toEqual(['first', 'one', 'second', 'two']);
    expect(loaded.events.some((event) => event.id === newer.id)).toBe(false);
    // The event that named it as its parent now hangs from the one before it; its id finds that one.
    expect(loaded.findEvent(newer.id).id).toBe(newer.parentId);
    // Resuming appends after the last known event; the skipped line stays in the file untouched.
    const resumed = await resumeSession(dir.path, loaded.header.id);
    resumed.writer.userMessage(userText('third'));
    await resumed.writer.close();
    expect(await readFile(file, 'utf8')).toContain('"type":"checkpoint"');
    expect(texts((await loadSession(file)).conversationAt())).toEqual([
      'first',
      'one',
      'second',
      'two',
      'third',
    ]);
  });

  it('still refuses a malformed line, whatever its kind, and a known kind with a wrong field', async () => {
    await using dir = await tempDir();
    for (const broken of [
      (line: Record<string, unknown>) => ({ ...line, id: 'not-a-uuid', payload: { type: 'checkpoint' } }),
      (line: Record<string, unknown>) => ({
        ...line,
        payload: { type: 'notice', event: { type: 'nonsense' } },
      }),
    ]) {
      const file = await logOf(dir, true);
      const lines = (await readFile(file, 'utf8')).split('\n');
      const at = lines.findIndex((line) => line.includes('"type":"notice"'));
      lines[at] = JSON.stringify(broken(JSON.parse(lines[at] as string) as Record<string, unknown>));
      await writeFile(file, lines.join('\n'));
      const error = await loadSession(file).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SessionError);
      expect(error).toMatchObject({ code: 'corrupt_line', line: at + 1 });
    }
  });
});
