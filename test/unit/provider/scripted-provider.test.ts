import { describe, expect, it } from 'vitest';
import type { ModelRequest, ProviderEvent } from '../../../harness/provider/model-provider.js';
import { createScriptedProvider } from '../../support/scripted-provider.js';

const request: ModelRequest = {
  model: 'scripted',
  system: '',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  maxTokens: 100,
};

async function collect(events: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('createScriptedProvider', () => {
  it('plays turns in order and records the requests', async () => {
    const provider = createScriptedProvider([
      {
        steps: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 't1', name: 'read_file', input: { path: 'a' } },
        ],
      },
      {
        steps: [
          { type: 'retry', reason: '529' },
          { type: 'text', text: 'Done.' },
        ],
        usage: { outputTokens: 3 },
      },
    ]);
    const first = await collect(provider.stream(request, new AbortController().signal));
    expect(first.map((event) => event.type)).toEqual([
      'text_delta',
      'block_done',
      'tool_use_start',
      'tool_input_delta',
      'block_done',
      'message_done',
    ]);
    expect(first.at(-1)).toMatchObject({ stopReason: 'tool_use' });
    const second = await collect(provider.stream(request, new AbortController().signal));
    expect(second[0]).toEqual({ type: 'retry', attempt: 2, delayMs: 0, reason: '529', discard: false });
    expect(second.at(-1)).toMatchObject({
      type: 'message_done',
      stopReason: 'end_turn',
      usage: { outputTokens: 3 },
    });
    expect(provider.requests).toHaveLength(2);
    expect(provider.remaining).toBe(0);
    expect((await collect(provider.stream(request, new AbortController().signal))).at(-1)).toMatchObject({
      type: 'error',
      error: { kind: 'bad_request' },
    });
  });

  it('pauses until aborted, then ends with an aborted error', async () => {
    const provider = createScriptedProvider([
      { steps: [{ type: 'text', text: 'Thinking...' }, { type: 'pause' }] },
    ]);
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const event of provider.stream(request, controller.signal)) {
      events.push(event);
      if (event.type === 'block_done') setTimeout(() => controller.abort(), 10);
    }
    expect(events.at(-1)).toEqual({
      type: 'error',
      error: { kind: 'aborted', message: 'The request was cancelled.' },
      partial: [{ type: 'text', text: 'Thinking...' }],
    });
  });
});
