import { cp, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_RESULT_OUTPUT } from '../../../harness/session/close-open-calls.js';
import { sessionsDir } from '../../../harness/session/session-paths.js';
import { loadSession } from '../../../harness/session/session-reader.js';
import { forkSession, listSessions, resumeSession } from '../../../harness/session/session-store.js';
import { sessionToolCalls } from '../../../harness/session/session-tool-calls.js';
import { SESSION_FORMAT_VERSION } from '../../../shared/session-format.js';
import { tempDir } from '../../support/temp-dir.js';

const FIXTURES = path.join(import.meta.dirname, '..', '..', 'fixtures', 'sessions-v1');
const PARENT = '01a207ab-b0c7-7444-95ef-493f8ddab25f';
const CHILD = '01a207ab-b0cd-7370-93a0-bffdaf69a76e';
const FORK = '01a207ab-b0eb-73f1-bffc-c563a7436460';

interface V1Line {
  id: string;
  parentId: string | null;
  payload: {
    type: string;
    callId?: string;
    name?: string;
    input?: unknown;
    output?: string;
    isError?: boolean;
  };
}

/** The fixture's version 1 lines, read as plain JSON (independently of the converter). */
async function v1Lines(id: string): Promise<V1Line[]> {
  const text = await readFile(path.join(FIXTURES, `${id}.jsonl`), 'utf8');
  return text
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as V1Line);
}

async function workspaceWithV1Sessions(dir: string): Promise<void> {
  await cp(FIXTURES, sessionsDir(dir), { recursive: true, filter: (file) => !file.endsWith('.md') });
}

describe('session files in format version 1', () => {
  it('load converted to whole messages, with the same calls, results and conversation', async () => {
    await using dir = await tempDir();
    await workspaceWithV1Sessions(dir.path);
    const session = await loadSession(path.join(sessionsDir(dir.path), `${PARENT}.jsonl`));
    expect(session.fileVersion).toBe(1);
    expect(session.header).toMatchObject({ version: SESSION_FORMAT_VERSION, id: PARENT });
    expect(session.warnings).toEqual([]);
    const types = new Set(session.events.map((event) => event.payload.type));
    expect([...types].sort()).toEqual([
      'assistant_message',
      'compaction',
      'model_change',
      'subagent_link',
      'user_message',
    ]);
    // Still one chain, every parent an event of the converted file.
    session.events.forEach((event, i) => {
      expect(event.parentId).toBe(i === 0 ? null : session.events[i - 1]!.id);
    });

    // Every call the v1 file listed (tool_call events) comes back from the messages, with its result.
    const lines = await v1Lines(PARENT);
    const calls = sessionToolCalls(session.events);
    const v1Calls = lines.filter((line) => line.payload.type === 'tool_call');
    expect(calls.map((call) => [call.callId, call.name, call.input])).toEqual(
      v1Calls.map(({ payload }) => [payload.callId, payload.name, payload.input]),
    );
    const v1Results = lines.filter((line) => line.payload.type === 'tool_result');
    expect(calls.map((call) => [call.result?.output, call.result?.isError])).toEqual(
      v1Results.map(({ payload }) => [payload.output, payload.isError]),
    );
    // The first results message is whole again: both results, then the user text sent with them.
    const firstResults = session.events.find((event) => event.id === v1Results[0]!.id)!;
    expect(firstResults.payload).toEqual({
      type: 'user_message',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            callId: 'toolu_01list',
            output: 'src/\ntest/\npackage.json',
            isError: false,
          },
          { type: 'tool_result', callId: 'toolu_02read', output: 'missing.ts does not exist', isError: true },
          { type: 'text', text: 'Also run the tests when you are done.' },
        ],
      },
    });

    // The conversation the model gets: compacted, then the prompt, the cut-off call closed, the rest.
    const conversation = session.conversationAt();
    expect(conversation[0]!.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('corrected to 3'),
    });
    // The compaction replaced 7 of the 8 messages before it, so the last reply stays.
    expect(conversation.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Fixed: the test now expects 3.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Now run the tests.' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_05shell', name: 'shell', input: { command: 'npm test' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', callId: 'toolu_05shell', output: NO_RESULT_OUTPUT, isError: true }],
      },
      { role: 'user', content: [{ type: 'text', text: 'Did the tests pass?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'I could not tell: the run stopped.' }] },
    ]);
    // Before the compaction, at the reply that made two calls: the messages as the engine had them.
    const atSpawn = session.conversationAt(calls[2]!.eventId);
    expect(atSpawn.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(atSpawn[2]).toEqual((firstResults.payload as { message: unknown }).message);

    // Ids users saw still resolve: a v1 tool_call event finds the reply that made the call.
    expect(session.findEvent(v1Calls[0]!.id).id).toBe(calls[0]!.eventId);
  });

  it('keep their totals, sub-agent links and fork links', async () => {
    await using dir = await tempDir();
    await workspaceWithV1Sessions(dir.path);
    const { sessions, problems } = await listSessions(dir.path);
    expect(problems).toEqual([]);
    const byId = new Map(sessions.map((summary) => [summary.id, summary]));
    const inputOf = async (id: string): Promise<number> =>
      (await v1Lines(id)).reduce((sum, { payload }) => {
        const usage = (payload as { usage?: { inputTokens: number } }).usage;
        return sum + (usage?.inputTokens ?? 0);
      }, 0);
    const parent = byId.get(PARENT)!;
    expect(parent.own.usage.inputTokens).toBe(await inputOf(PARENT));
    expect(parent.total.usage.inputTokens).toBe((await inputOf(PARENT)) + (await inputOf(CHILD)));
    expect(parent).toMatchObject({ firstPrompt: 'Find the failing test and fix it.', prompts: 3, turns: 6 });
    expect(byId.get(CHILD)).toMatchObject({ parentSessionId: PARENT, turns: 2 });

    const fork = await loadSession(path.join(sessionsDir(dir.path), `${FORK}.jsonl`));
    const source = await loadSession(path.join(sessionsDir(dir.path), `${PARENT}.jsonl`));
    // The fork point was a tool_call event: it now names the reply that made the call.
    expect(fork.header.forkedFrom).toEqual({ sessionId: PARENT, eventId: source.events[1]!.id });
    expect(fork.conversationAt().at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Try another way.' }],
    });
  });

  it('are rewritten in the current format when resumed, then continue; forks of them are current', async () => {
    await using dir = await tempDir();
    await workspaceWithV1Sessions(dir.path);
    const file = path.join(sessionsDir(dir.path), `${PARENT}.jsonl`);
    const before = await loadSession(file);
    const resumed = await resumeSession(dir.path, PARENT);
    expect(resumed.warnings).toEqual([expect.stringContaining('converted from session format 1 to 2')]);
    expect(resumed.messages).toEqual(before.conversationAt());
    resumed.writer.userMessage({ role: 'user', content: [{ type: 'text', text: 'Once more.' }] });
    await resumed.writer.close();
    const after = await loadSession(file);
    expect(after.fileVersion).toBe(SESSION_FORMAT_VERSION);
    expect(JSON.parse((await readFile(file, 'utf8')).split('\n')[0]!)).toMatchObject({ version: 2 });
    expect(after.events.slice(0, -1)).toEqual(before.events);
    expect(after.events.at(-1)!.parentId).toBe(before.events.at(-1)!.id);
    expect((await readdir(sessionsDir(dir.path))).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    // A fork of a version 1 file (here the sub-agent's, at its grep results) is written in the current format.
    const child = await loadSession(path.join(sessionsDir(dir.path), `${CHILD}.jsonl`));
    const fork = await forkSession(dir.path, CHILD, child.events[2]!.id);
    await fork.writer.close();
    const forked = await loadSession(fork.writer.file);
    expect(forked.fileVersion).toBe(SESSION_FORMAT_VERSION);
    expect(forked.conversationAt()).toEqual(child.conversationAt(child.events[2]!.id));
    expect(forked.header.forkedFrom).toEqual({ sessionId: CHILD, eventId: child.events[2]!.id });
  });
});
