import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionError } from '../../../harness/session/session-error.js';
import { loadSession } from '../../../harness/session/session-reader.js';
import { createSessionWriter } from '../../../harness/session/session-writer.js';
import { userText } from '../../support/session-fixtures.js';
import { type TempDir, tempDir } from '../../support/temp-dir.js';

/** A session file with `count` user messages, closed. */
async function sessionWith(dir: TempDir, count: number): Promise<string> {
  const writer = await createSessionWriter({ workspace: dir.path, model: 'm', policy: 'execute' });
  for (let i = 0; i < count; i++) writer.userMessage(userText(`message ${i}`));
  await writer.close();
  return writer.file;
}

async function loadError(file: string): Promise<SessionError> {
  const error = await loadSession(file).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SessionError);
  return error as SessionError;
}

describe('loadSession', () => {
  it('skips a torn last line without a newline, with a warning naming file:line', async () => {
    await using dir = await tempDir();
    const file = await sessionWith(dir, 3);
    const complete = (await readFile(file)).length;
    await appendFile(file, '{"id":"01a2","parentId":null,"timest');
    const session = await loadSession(file);
    expect(session.events).toHaveLength(3);
    expect(session.warnings).toEqual([
      `${file}:5: skipped a torn last line (no newline); the writer stopped mid-write`,
    ]);
    expect(session.validBytes).toBe(complete);
  });

  it('skips a last line that is not JSON even with its newline (a disk that lost the tail)', async () => {
    await using dir = await tempDir();
    const file = await sessionWith(dir, 2);
    await appendFile(file, '\0\0\0\0\n');
    const session = await loadSession(file);
    expect(session.events).toHaveLength(2);
    expect(session.warnings[0]).toMatch(/:4: skipped a torn last line \(not valid JSON\)/);
  });

  it('refuses a corrupt line in the middle with a typed error naming file:line', async () => {
    await using dir = await tempDir();
    const file = await sessionWith(dir, 3);
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[2] = lines[2]!.slice(0, 30);
    await writeFile(file, lines.join('\n'));
    const error = await loadError(file);
    expect(error).toMatchObject({ code: 'corrupt_line', file, line: 3 });
    expect(error.message).toBe(`${file}:3: not valid JSON`);
  });

  it('names the field of a line that is JSON but not an event', async () => {
    await using dir = await tempDir();
    const file = await sessionWith(dir, 3);
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[2] = lines[2]!.replace('"role":"user"', '"role":"robot"');
    await writeFile(file, lines.join('\n'));
    const error = await loadError(file);
    expect(error).toMatchObject({ code: 'corrupt_line', line: 3 });
    expect(error.message).toMatch(new RegExp(`^${file}:3: invalid event: payload\\.message\\.role: `));
  });

  it('refuses an event whose parent is not an earlier event', async () => {
    await using dir = await tempDir();
    const file = await sessionWith(dir, 3);
    const lines = (await readFile(file, 'utf8')).split('\n');
    const [second, third] = [JSON.parse(lines[2]!), JSON.parse(lines[3]!)];
    [lines[2], lines[3]] = [JSON.stringify(third), JSON.stringify(second)];
    await writeFile(file, lines.join('\n'));
    const error = await loadError(file);
    expect(error).toMatchObject({ code: 'corrupt_line', line: 3 });
    expect(error.message).toMatch(/parentId .* names no earlier event/);
  });

  it('tells a foreign file, a newer format, an empty file and a missing one apart', async () => {
    await using dir = await tempDir();
    const write = async (name: string, text: string) => {
      await mkdir(dir.path, { recursive: true });
      await writeFile(path.join(dir.path, name), text);
      return path.join(dir.path, name);
    };
    expect(await loadError(await write('a.jsonl', '{"hello":"world"}\n'))).toMatchObject({
      code: 'not_a_session',
      line: 1,
    });
    expect(await loadError(await write('b.jsonl', 'plain text\n'))).toMatchObject({ code: 'not_a_session' });
    const newer = await loadError(await write('c.jsonl', '{"type":"session","version":3}\n'));
    expect(newer.code).toBe('unsupported_version');
    expect(newer.message).toMatch(/c\.jsonl:1: session format version 3 is not supported/);
    expect(await loadError(await write('d.jsonl', ''))).toMatchObject({ code: 'empty' });
    expect(await loadError(await write('e.jsonl', '{"type":"session","vers'))).toMatchObject({
      code: 'empty',
    });
    const invalidHeader = await loadError(
      await write('f.jsonl', '{"type":"session","version":1,"id":"x"}\n'),
    );
    expect(invalidHeader).toMatchObject({ code: 'corrupt_line', line: 1 });
    expect(await loadError(path.join(dir.path, 'none.jsonl'))).toMatchObject({ code: 'missing' });
  });

  it('finds events by unique prefix and says when one is unknown', async () => {
    await using dir = await tempDir();
    const session = await loadSession(await sessionWith(dir, 2));
    const [first] = session.events;
    expect(session.findEvent(first!.id)).toBe(first);
    expect(() => session.findEvent('ffff')).toThrow(expect.objectContaining({ code: 'unknown_event' }));
    // Every event shares the leading timestamp digits.
    expect(() => session.findEvent('0')).toThrow(/2 events start with 0/);
  });

  it('loads 10,000 events quickly', async () => {
    await using dir = await tempDir();
    const file = await sessionWith(dir, 10_000);
    const start = performance.now();
    const session = await loadSession(file);
    expect(session.events).toHaveLength(10_000);
    // The bench holds the real figure (100,000 events ≤ 1 s); this only catches a gross regression.
    expect(performance.now() - start).toBeLessThan(1_000);
  });
});
