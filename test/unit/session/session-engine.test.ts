import { describe, expect, it } from 'vitest';
import { loadSession } from '../../../harness/session/session-reader.js';
import { resumeSession } from '../../../harness/session/session-store.js';
import { createSessionWriter } from '../../../harness/session/session-writer.js';
import type { ScriptedTurn } from '../../support/scripted-provider.js';
import { tempDir } from '../../support/temp-dir.js';
import { fakeTool, runEngine } from '../engine/engine-harness.js';

const toolTurn = (id: string, inputTokens = 100): ScriptedTurn => ({
  steps: [
    { type: 'text', text: `step ${id}` },
    { type: 'tool_call', id, name: 'read_file', input: { path: `${id}.ts` } },
  ],
  usage: { inputTokens, outputTokens: 10 },
});

const readFile = fakeTool('read_file', 'read', (input) => ({
  output: `contents of ${JSON.stringify(input)}`,
  isError: false,
}));

describe('a session written by the real engine', () => {
  it('rebuilds exactly the conversation the engine ended with, compaction included, and resumes it', async () => {
    await using dir = await tempDir();
    const writer = await createSessionWriter({
      workspace: dir.path,
      model: 'claude-sonnet-5-5',
      policy: 'execute',
    });
    const first = await runEngine({
      turns: [
        toolTurn('t1'),
        toolTurn('t2'),
        toolTurn('t3'),
        // 850 tokens of a 1000-token window: the engine compacts before the next turn.
        toolTurn('t4', 850),
        {
          steps: [{ type: 'text', text: 'SUMMARY: read t1 to t4.' }],
          usage: { inputTokens: 300, outputTokens: 42 },
        },
        { steps: [{ type: 'text', text: 'All done.' }] },
      ],
      tools: [readFile],
      contextWindow: 1000,
      engine: { keepExchanges: 2 },
      log: writer,
    });
    await writer.flush();
    expect(first.outcome.status).toBe('complete');
    const session = await loadSession(writer.file);
    expect(session.events.some((event) => event.payload.type === 'compaction')).toBe(true);
    expect(session.conversationAt()).toEqual(first.outcome.messages);
    await writer.close();

    const resumed = await resumeSession(dir.path, writer.header.id);
    expect(resumed.messages).toEqual(first.outcome.messages);
    const second = await runEngine({
      turns: [toolTurn('t5'), { steps: [{ type: 'text', text: 'Again.' }] }],
      tools: [readFile],
      request: { history: resumed.messages, prompt: { text: 'once more' } },
      log: resumed.writer,
    });
    await resumed.writer.close();
    expect((await loadSession(writer.file)).conversationAt()).toEqual(second.outcome.messages);
  });
});
