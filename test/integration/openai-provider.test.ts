import { describe, expect, it } from 'vitest';
import type { ModelRequest, ProviderEvent } from '../../harness/provider/model-provider.js';
import { createOpenAiProvider } from '../../harness/provider/openai-provider.js';
import { type FakeOpenAiApi, fakeOpenAiApi } from '../support/fake-openai-api.js';

const KEY = 'sk-openai-test-0123456789abcdef';

function provider(api: FakeOpenAiApi, kind: 'chat' | 'responses', debug: string[] = []) {
  return createOpenAiProvider({
    api: kind,
    name: 'local',
    baseURL: api.url,
    apiKey: KEY,
    apiKeyEnv: 'LOCAL_KEY',
    contextWindow: () => 32_000,
    backoff: { baseMs: 5, capMs: 20 },
    maxRetries: 2,
    onDebug: (line) => debug.push(line),
  });
}

const REQUEST: ModelRequest = {
  model: 'm',
  system: 'You are a test.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  tools: [{ name: 'shell', description: 'Run a command.', inputSchema: { type: 'object', properties: {} } }],
  maxTokens: 100,
};

async function collect(events: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const event of events) out.push(event);
  const terminals = out.filter((event) => event.type === 'message_done' || event.type === 'error');
  expect(terminals).toHaveLength(1);
  expect(out.at(-1)).toBe(terminals[0]);
  return out;
}

describe.each(['chat', 'responses'] as const)('the OpenAI %s provider on the real SDK', (kind) => {
  it('retries a 429 as a retry event, then streams the reply', async () => {
    await using api = await fakeOpenAiApi([
      {
        type: 'failure',
        status: 429,
        body: { error: { message: 'slow down', type: 'rate_limit', code: null } },
      },
      { type: 'reply', text: 'Hello there.', usage: { input: 12, output: 3, cached: 4 } },
    ]);
    const events = await collect(provider(api, kind).stream(REQUEST, new AbortController().signal));
    expect(events[0]).toMatchObject({ type: 'retry', attempt: 2, discard: false });
    const last = events.at(-1);
    expect(last).toMatchObject({
      type: 'message_done',
      stopReason: 'end_turn',
      message: { content: [{ type: 'text', text: 'Hello there.' }] },
      usage: { inputTokens: 8, outputTokens: 3, cacheReadTokens: 4, cacheWriteTokens: 0 },
    });
  });

  it('says which variable to check when the server refuses the key, and never repeats the key', async () => {
    await using api = await fakeOpenAiApi([
      {
        type: 'failure',
        status: 401,
        body: { error: { message: `bad key ${KEY}`, type: 'invalid_request_error' } },
      },
    ]);
    const debug: string[] = [];
    const events = await collect(provider(api, kind, debug).stream(REQUEST, new AbortController().signal));
    const last = events.at(-1);
    expect(last).toMatchObject({ type: 'error', error: { kind: 'authentication', status: 401 } });
    const message = last?.type === 'error' ? last.error.message : '';
    expect(message).toContain('Check LOCAL_KEY (providers.local.apiKeyEnv)');
    expect(message).not.toContain(KEY);
    expect(debug.join('\n')).not.toContain(KEY);
    expect(api.requests).toHaveLength(1);
  });

  it('reports a full context as context_overflow, so the engine compacts', async () => {
    await using api = await fakeOpenAiApi([
      {
        type: 'failure',
        status: 400,
        body: {
          error: {
            message: "This model's maximum context length is 32768 tokens.",
            code: 'context_length_exceeded',
          },
        },
      },
    ]);
    const events = await collect(provider(api, kind).stream(REQUEST, new AbortController().signal));
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'context_overflow', status: 400 } });
  });
});
