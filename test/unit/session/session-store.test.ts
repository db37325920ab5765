import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_RESULT_OUTPUT } from '../../../harness/session/close-open-calls.js';
import { deleteSession } from '../../../harness/session/delete-session.js';
import { sessionsDir } from '../../../harness/session/session-paths.js';
import { loadSession } from '../../../harness/session/session-reader.js';
import {
  forkSession,
  latestSession,
  listSessions,
  resolveSession,
  resumeSession,
} from '../../../harness/session/session-store.js';
import { sessionToolCalls } from '../../../harness/session/session-tool-calls.js';
import { createSessionWriter, type SessionWriter } from '../../../harness/session/session-writer.js';
import { assistant, results, toolResult, toolUse, usage, userText } from '../../support/session-fixtures.js';
import { tempDir } from '../../support/temp-dir.js';

const MODEL = 'claude-sonnet-4-5';

/** A closed session: `prompt`, one tool call and its result, a final answer; 1M input and 100k output tokens. */
async function oneTurnSession(
  workspace: string,
  prompt: string,
  parentSessionId?: string,
): Promise<SessionWriter> {
  const writer = await createSessionWriter({
    workspace,
    model: MODEL,
    policy: 'execute',
    ...(parentSessionId ? { parentSessionId } : {}),
  });
  writer.userMessage(userText(prompt));
  writer.assistantMessage(
    assistant(toolUse('c1', 'read_file', { path: 'a.ts' })),
    usage(500_000, 50_000),
    MODEL,
  );
  writer.toolResults(results(toolResult('c1', 'contents')));
  writer.assistantMessage(assistant({ type: 'text', text: 'done' }), usage(500_000, 50_000), MODEL);
  await writer.close();
  return writer;
}

describe('session store', () => {
  it('forks at an earlier event into a new file that loads on its own', async () => {
    await using dir = await tempDir();
    const source = await oneTurnSession(dir.path, 'first');
    const original = await readFile(source.file, 'utf8');
    const sourceSession = await loadSession(source.file);
    const forkPoint = sourceSession.events[2]!; // the tool results message
    expect(forkPoint.payload).toMatchObject({
      type: 'user_message',
      message: { content: [{ type: 'tool_result' }] },
    });

    const fork = await forkSession(dir.path, source.header.id.slice(0, 20), forkPoint.id.slice(0, 30));
    fork.writer.userMessage(userText('try another way'));
    await fork.writer.close();

    expect(fork.writer.file).not.toBe(source.file);
    expect(fork.header.forkedFrom).toEqual({ sessionId: source.header.id, eventId: forkPoint.id });
    expect(fork.messages).toEqual(sourceSession.conversationAt(forkPoint.id));
    expect(fork.totals.usage.inputTokens).toBe(0);
    expect(await readFile(source.file, 'utf8')).toBe(original);

    const forked = await loadSession(fork.writer.file);
    expect(forked.events.slice(0, 3)).toEqual(sourceSession.events.slice(0, 3));
    expect(forked.events[3]!.parentId).toBe(forkPoint.id);
    expect(forked.conversationAt()).toEqual([...fork.messages, userText('try another way')]);
  });

  it('closes tool calls left open at a fork point so the conversation can go on', async () => {
    await using dir = await tempDir();
    const source = await oneTurnSession(dir.path, 'first');
    const atCall = (await loadSession(source.file)).events[1]!; // the assistant message with the call
    const fork = await forkSession(dir.path, source.header.id, atCall.id);
    await fork.writer.close();
    expect(fork.messages.at(-1)).toEqual(results(toolResult('c1', NO_RESULT_OUTPUT, true)));
    expect(fork.warnings).toEqual([
      expect.stringMatching(/1 tool call\(s\) at the fork point had no result/),
    ]);
    expect((await loadSession(fork.writer.file)).conversationAt()).toEqual(fork.messages);
  });

  it('resumes in the same file, continuing the chain and keeping the totals', async () => {
    await using dir = await tempDir();
    const source = await oneTurnSession(dir.path, 'first');
    const before = await loadSession(source.file);
    const resumed = await resumeSession(dir.path, source.header.id);
    expect(resumed.messages).toEqual(before.conversationAt());
    expect(resumed.totals.usage).toEqual(usage(1_000_000, 100_000));
    expect(resumed.totals.costUsd).toBeCloseTo(3 + 1.5);
    expect(resumed.writer.file).toBe(source.file);
    resumed.writer.userMessage(userText('second'));
    resumed.writer.assistantMessage(assistant({ type: 'text', text: 'ok' }), usage(10, 1), MODEL);
    await resumed.writer.close();

    const after = await loadSession(source.file);
    expect(after.events.slice(0, before.events.length)).toEqual(before.events);
    expect(after.events[before.events.length]!.parentId).toBe(before.events.at(-1)!.id);
    expect(after.conversationAt()).toEqual([
      ...before.conversationAt(),
      userText('second'),
      assistant({ type: 'text', text: 'ok' }),
    ]);
    const again = await resumeSession(dir.path, source.header.id);
    await again.writer.close();
    expect(again.totals.usage.inputTokens).toBe(1_000_010);
  });

  it('lets one process at a time continue a session, and takes over the lock of a dead one', async () => {
    await using dir = await tempDir();
    const source = await oneTurnSession(dir.path, 'first');
    const first = await resumeSession(dir.path, source.header.id);
    await expect(resumeSession(dir.path, source.header.id)).rejects.toMatchObject({
      code: 'in_use',
      message: expect.stringContaining(`in use by process ${process.pid}`),
    });
    await first.writer.close();
    await expect(readFile(`${source.file}.lock`)).rejects.toThrow(/ENOENT/);
    // A lock left by a process that no longer exists (a crash) does not block.
    await writeFile(`${source.file}.lock`, '2147483646\n');
    const again = await resumeSession(dir.path, source.header.id);
    await again.writer.close();
    await expect(readFile(`${source.file}.lock`)).rejects.toThrow(/ENOENT/);
  });

  it('holds a new session and a fork locked while they are written, so neither is deleted or continued', async () => {
    await using dir = await tempDir();
    const fresh = await createSessionWriter({ workspace: dir.path, model: MODEL, policy: 'execute' });
    fresh.userMessage(userText('first'));
    await expect(deleteSession(dir.path, fresh.header.id)).rejects.toMatchObject({ code: 'in_use' });
    await expect(resumeSession(dir.path, fresh.header.id)).rejects.toMatchObject({ code: 'in_use' });
    await fresh.close();
    // Still there after the refused delete, with what was written; the lock went with the writer.
    expect((await loadSession(fresh.file)).events).toHaveLength(1);
    await expect(readFile(`${fresh.file}.lock`)).rejects.toThrow(/ENOENT/);

    const fork = await forkSession(dir.path, fresh.header.id, fresh.lastEventId!);
    await expect(deleteSession(dir.path, fork.header.id)).rejects.toMatchObject({ code: 'in_use' });
    await fork.writer.close();
    expect(await deleteSession(dir.path, fork.header.id)).toEqual([fork.header.id]);
    await expect(readFile(fork.writer.file)).rejects.toThrow(/ENOENT/);
  });

  it('closes a call left open by a log that ends right after the reply', async () => {
    await using dir = await tempDir();
    const writer = await createSessionWriter({ workspace: dir.path, model: MODEL, policy: 'execute' });
    writer.userMessage(userText('go'));
    writer.assistantMessage(assistant(toolUse('c9', 'grep', { pattern: 'x' })), usage(10, 1), MODEL);
    await writer.close();
    const resumed = await resumeSession(dir.path, writer.header.id);
    await resumed.writer.close();
    const session = await loadSession(writer.file);
    expect(session.events.at(-1)?.payload).toMatchObject({
      type: 'user_message',
      message: { content: [{ type: 'tool_result', callId: 'c9', isError: true }] },
    });
    expect(sessionToolCalls(session.events)).toMatchObject([
      { callId: 'c9', name: 'grep', result: { isError: true } },
    ]);
  });

  it('counts what compactions spent on their summaries in the totals', async () => {
    await using dir = await tempDir();
    const source = await oneTurnSession(dir.path, 'first');
    const resumed = await resumeSession(dir.path, source.header.id);
    resumed.writer.compaction('what happened so far', 4, usage(200_000, 2_000), MODEL);
    await resumed.writer.close();
    const again = await resumeSession(dir.path, source.header.id);
    await again.writer.close();
    expect(again.totals.usage).toEqual(usage(1_200_000, 102_000));
    expect(again.totals.costUsd).toBeCloseTo(3 + 1.5 + 0.6 + 0.03);
  });

  it('cuts a torn last line before resuming, so the next line is whole', async () => {
    await using dir = await tempDir();
    const source = await oneTurnSession(dir.path, 'first');
    await appendFile(source.file, '{"id":"01a2030c-8333-77ca-a5c9-3727');
    const resumed = await resumeSession(dir.path, source.header.id);
    expect(resumed.warnings).toEqual([
      expect.stringMatching(/skipped a torn last line/),
      expect.stringMatching(/removed the torn last line \(35 bytes\)/),
    ]);
    resumed.writer.userMessage(userText('after the crash'));
    await resumed.writer.close();
    const after = await loadSession(source.file);
    expect(after.warnings).toEqual([]);
    expect(after.conversationAt().at(-1)).toEqual(userText('after the crash'));
  });

  it('lists sessions newest first with totals that include a sub-agent child', async () => {
    await using dir = await tempDir();
    const older = await oneTurnSession(dir.path, 'older   prompt\nwith lines');
    const parent = await createSessionWriter({ workspace: dir.path, model: MODEL, policy: 'execute' });
    parent.userMessage(userText('delegate'));
    parent.assistantMessage(assistant(toolUse('s1', 'spawn_agent', { task: 'look' })), usage(100, 10), MODEL);
    const child = await oneTurnSession(dir.path, 'look', parent.header.id);
    parent.append({ type: 'subagent_link', childSessionId: child.header.id, callId: 's1', task: 'look' });
    parent.toolResults(results(toolResult('s1', 'found it')));
    await parent.close();
    // A grandchild linked only by its header counts too.
    const grandchild = await oneTurnSession(dir.path, 'deeper', child.header.id);

    const { sessions, problems } = await listSessions(dir.path);
    expect(problems).toEqual([]);
    expect(sessions.map((session) => session.id)).toEqual([
      grandchild.header.id,
      parent.header.id,
      child.header.id,
      older.header.id,
    ]);
    const top = sessions[1]!;
    expect(top).toMatchObject({ firstPrompt: 'delegate', prompts: 1, turns: 1, model: MODEL });
    expect(top.own.usage).toEqual(usage(100, 10));
    expect(top.total.usage).toEqual(usage(2_000_100, 200_010));
    expect(top.total.costUsd).toBeCloseTo(2 * 4.5 + 0.00045);
    expect(sessions[3]!.firstPrompt).toBe('older prompt with lines');
    expect(sessions[2]!.parentSessionId).toBe(parent.header.id);

    expect((await latestSession(dir.path))?.id).toBe(parent.header.id);
    const resumed = await resumeSession(dir.path, parent.header.id);
    await resumed.writer.close();
    expect(resumed.totals.usage).toEqual(top.total.usage);
  });

  it('lists around foreign and broken files, reporting them', async () => {
    await using dir = await tempDir();
    const good = await oneTurnSession(dir.path, 'fine');
    const folder = sessionsDir(dir.path);
    await writeFile(path.join(folder, 'notes.jsonl'), '{"some":"thing"}\n');
    await writeFile(path.join(folder, 'README.txt'), 'not even jsonl');
    const broken = (await readFile(good.file, 'utf8')).replace('"role":"user"', '"role":');
    await writeFile(path.join(folder, '01a2030c-8333-77ca-a5c9-372725a8173f.jsonl'), broken);

    const { sessions, problems } = await listSessions(dir.path);
    expect(sessions.map((session) => session.id)).toEqual([good.header.id]);
    expect(problems.map((problem) => [path.basename(problem.file), problem.error.code])).toEqual([
      ['01a2030c-8333-77ca-a5c9-372725a8173f.jsonl', 'corrupt_line'],
      ['notes.jsonl', 'not_a_session'],
    ]);
    expect(await listSessions(path.join(dir.path, 'nowhere'))).toEqual({ sessions: [], problems: [] });
  });

  it('resolves ids by unique prefix and explains none and several', async () => {
    await using dir = await tempDir();
    const a = await oneTurnSession(dir.path, 'a');
    const b = await oneTurnSession(dir.path, 'b');
    expect(await resolveSession(dir.path, a.header.id)).toEqual({ id: a.header.id, file: a.file });
    expect((await resolveSession(dir.path, b.header.id.slice(0, 30))).id).toBe(b.header.id);
    await expect(resolveSession(dir.path, a.header.id.slice(0, 4))).rejects.toMatchObject({
      code: 'ambiguous',
      message: expect.stringMatching(/^2 sessions start with/),
    });
    await expect(resolveSession(dir.path, 'ffff')).rejects.toMatchObject({ code: 'missing' });
    await expect(resolveSession(dir.path, '../../etc/passwd')).rejects.toMatchObject({ code: 'missing' });
  });
});
