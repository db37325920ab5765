import { describe, expect, it } from 'vitest';
import { createCommandInbox } from '../../../harness/engine/command-inbox.js';
import { Engine } from '../../../harness/engine/engine.js';
import type { ConversationLog } from '../../../harness/engine/engine-types.js';
import { createScriptedProvider } from '../../support/scripted-provider.js';
import { baseRequest, createFakeToolHost, fakeTool, runEngine } from './engine-harness.js';

describe('Engine: failing emitters and logs', () => {
  it('completes with the right outcome when the emitter throws on every event', async () => {
    const provider = createScriptedProvider([
      { steps: [{ type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'a' } }] },
      { steps: [{ type: 'text', text: 'Finished anyway.' }], usage: { outputTokens: 7 } },
    ]);
    const host = createFakeToolHost([fakeTool('read_file', 'read')]);
    let attempts = 0;
    const outcome = await new Engine().run(
      { provider, tools: host, inbox: createCommandInbox().inbox, signal: new AbortController().signal },
      baseRequest(),
      {
        emit() {
          attempts++;
          throw new Error('EPIPE: the client went away');
        },
      },
    );
    expect(outcome).toMatchObject({
      status: 'complete',
      finalMessage: 'Finished anyway.',
      turns: 2,
      toolCalls: 1,
      usage: { outputTokens: 7 },
    });
    expect(host.calls).toHaveLength(1);
    expect(outcome.messages).toHaveLength(4);
    expect(outcome.emitterFailures).toBe(attempts);
    expect(attempts).toBeGreaterThan(10);
  });

  it('contains a log that throws or rejects', async () => {
    const failing: ConversationLog = {
      userMessage() {
        throw new Error('disk full');
      },
      // Typed void, but an async implementation returns a promise: its rejection must be caught.
      assistantMessage: () => Promise.reject(new Error('slow store failed')),
      toolResults() {
        throw new Error('disk full');
      },
      compaction() {},
    };
    const { outcome } = await runEngine({
      turns: [
        { steps: [{ type: 'tool_call', id: 'c1', name: 'read_file', input: {} }] },
        { steps: [{ type: 'text', text: 'ok' }] },
      ],
      tools: [fakeTool('read_file', 'read')],
      log: failing,
    });
    // Let the rejected promises settle: they must not surface as unhandled.
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcome.status).toBe('complete');
    // Two threw at once; rejections are counted as they settle (the outcome is a snapshot).
    expect(outcome.logFailures).toBeGreaterThanOrEqual(2);
    expect(outcome.emitterFailures).toBeUndefined();
  });
});
