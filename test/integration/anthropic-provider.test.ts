import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../harness/provider/anthropic-provider.js';
import type { ModelProvider, ModelRequest, ProviderEvent } from '../../harness/provider/model-provider.js';
import type { Message } from '../../shared/conversation.js';
import {
  apiErrorReply,
  type FakeMessagesApi,
  type FakeReply,
  fakeMessagesApi,
} from '../support/fake-messages-api.js';

const API_KEY = 'sk-ant-test-0123456789abcdef';
const MODEL = 'claude-sonnet-5-5';

function providerFor(server: FakeMessagesApi, debug: string[] = [], maxRetries?: number): ModelProvider {
  return createAnthropicProvider({
    apiKey: API_KEY,
    baseURL: server.url,
    // Fast backoff: these tests are about what happens, not how long it waits.
    backoff: { baseMs: 5, capMs: 20 },
    ...(maxRetries !== undefined ? { maxRetries } : {}),
    onDebug: (line) => debug.push(line),
  });
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: MODEL,
    system: 'You are a test.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    tools: [],
    maxTokens: 1024,
    ...overrides,
  };
}

async function collect(events: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const event of events) out.push(event);
  // The contract: exactly one terminal event, and it is the last.
  const terminals = out.filter((event) => event.type === 'message_done' || event.type === 'error');
  expect(terminals).toHaveLength(1);
  expect(out.at(-1)).toBe(terminals[0]);
  return out;
}

function done(events: ProviderEvent[]): Extract<ProviderEvent, { type: 'message_done' }> {
  const last = events.at(-1);
  if (last?.type !== 'message_done') throw new Error(`expected message_done, got ${JSON.stringify(last)}`);
  return last;
}

function failed(events: ProviderEvent[]): Extract<ProviderEvent, { type: 'error' }> {
  const last = events.at(-1);
  if (last?.type !== 'error') throw new Error(`expected error, got ${JSON.stringify(last)}`);
  return last;
}

function textOf(events: ProviderEvent[], index = 0): string {
  return events
    .map((event) => (event.type === 'text_delta' && event.index === index ? event.text : ''))
    .join('');
}

function textReply(text: string, extra: Partial<Extract<FakeReply, { type: 'message' }>> = {}): FakeReply {
  return { type: 'message', blocks: [{ type: 'text', text }], ...extra };
}

/** Every `cache_control` anywhere in a request body. */
function countBreakpoints(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countBreakpoints(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.entries(value).reduce(
    (sum, [key, item]) => sum + (key === 'cache_control' ? 1 : 0) + countBreakpoints(item),
    0,
  );
}

describe('createAnthropicProvider against a local Messages API', () => {
  it('streams text deltas and builds the final message', async () => {
    await using server = await fakeMessagesApi([textReply('Hello, streaming world! ✓')]);
    const events = await collect(providerFor(server).stream(request(), new AbortController().signal));

    expect(events.filter((event) => event.type === 'text_delta').length).toBeGreaterThan(3);
    expect(textOf(events)).toBe('Hello, streaming world! ✓');
    expect(events).toContainEqual({
      type: 'block_done',
      index: 0,
      block: { type: 'text', text: 'Hello, streaming world! ✓' },
    });
    const { message, stopReason } = done(events);
    expect(message).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello, streaming world! ✓' }],
    });
    expect(stopReason).toBe('end_turn');

    const [sent] = server.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe('/v1/messages');
    // SDK 1.x sends the API key as a bearer token.
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.headers['anthropic-version']).toBeTruthy();
    expect(sent?.body).toMatchObject({ model: MODEL, stream: true, max_tokens: 1024 });
  });

  it('assembles two tool calls from JSON split at awkward places', async () => {
    const first = { path: 'src/a "quoted" file.ts', lines: [1, 20], nested: { ok: true, n: -1.5e3 } };
    const second = { command: 'echo "😀 \\u00e9 \\n done"', timeout: 30 };
    await using server = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'text', text: 'Two calls.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: first },
          { type: 'tool_use', id: 'toolu_2', name: 'shell', input: second },
        ],
      },
    ]);
    const events = await collect(providerFor(server).stream(request(), new AbortController().signal));

    expect(events).toContainEqual({ type: 'tool_use_start', index: 1, id: 'toolu_1', name: 'read_file' });
    expect(events).toContainEqual({ type: 'tool_use_start', index: 2, id: 'toolu_2', name: 'shell' });
    const jsonOf = (index: number) =>
      events
        .map((event) => (event.type === 'tool_input_delta' && event.index === index ? event.json : ''))
        .join('');
    expect(jsonOf(1)).toBe(JSON.stringify(first));
    expect(jsonOf(2)).toBe(JSON.stringify(second));
    expect(
      events.filter((event) => event.type === 'tool_input_delta' && event.index === 1).length,
    ).toBeGreaterThan(5);

    const { message, stopReason } = done(events);
    expect(stopReason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'text', text: 'Two calls.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: first },
      { type: 'tool_use', id: 'toolu_2', name: 'shell', input: second },
    ]);
    // Each call arrived finished (input parsed) in its block_done: the same object the message holds.
    const handed = events.flatMap((event) => (event.type === 'block_done' ? [event.block] : []));
    expect(handed).toHaveLength(3);
    for (const [index, block] of handed.entries()) expect(block).toBe(message.content[index]);
  });

  it('keeps thinking signatures and sends thinking blocks back unchanged', async () => {
    const signature = 'EqQBCkYIARgCIkD+sig/with+base64==';
    await using server = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'thinking', thinking: 'Let me think about the file first.', signature },
          { type: 'redacted_thinking', data: 'opaque-redacted-payload' },
          { type: 'tool_use', id: 'toolu_9', name: 'read_file', input: { path: 'a.ts' } },
        ],
      },
      textReply('Done.'),
    ]);
    const provider = providerFor(server);
    const first = request({ maxTokens: 4096, thinkingBudgetTokens: 2048 });
    const events = await collect(provider.stream(first, new AbortController().signal));

    expect(events.filter((event) => event.type === 'thinking_delta').length).toBeGreaterThan(1);
    const { message } = done(events);
    expect(message.content[0]).toEqual({
      type: 'thinking',
      thinking: 'Let me think about the file first.',
      signature,
    });
    expect(message.content[1]).toEqual({ type: 'redacted_thinking', data: 'opaque-redacted-payload' });
    expect(server.requests[0]?.body?.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });

    const toolResult: Message = {
      role: 'user',
      content: [{ type: 'tool_result', callId: 'toolu_9', output: 'no such file', isError: true }],
    };
    const second = { ...first, messages: [...first.messages, message, toolResult] };
    done(await collect(provider.stream(second, new AbortController().signal)));

    const sent = server.requests[1]?.body?.messages;
    expect(sent?.[1]?.content).toEqual([
      { type: 'thinking', thinking: 'Let me think about the file first.', signature },
      { type: 'redacted_thinking', data: 'opaque-redacted-payload' },
      { type: 'tool_use', id: 'toolu_9', name: 'read_file', input: { path: 'a.ts' } },
    ]);
    expect(sent?.[2]?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_9',
        content: 'no such file',
        is_error: true,
        cache_control: { type: 'ephemeral' },
      },
    ]);
  });

  it('reports usage with cache reads and writes, combining message_start and message_delta', async () => {
    await using server = await fakeMessagesApi([
      textReply('ok', {
        usage: {
          input_tokens: 12,
          output_tokens: 34,
          cache_creation_input_tokens: 100,
          cache_read_input_tokens: 2000,
        },
      }),
    ]);
    const { usage } = done(
      await collect(providerFor(server).stream(request(), new AbortController().signal)),
    );
    expect(usage).toEqual({
      inputTokens: 12,
      outputTokens: 34,
      cacheWriteTokens: 100,
      cacheReadTokens: 2000,
    });
  });

  it('puts cache breakpoints on the system prompt, the last tool and the last message block', async () => {
    await using server = await fakeMessagesApi([textReply('ok')]);
    const tool = (name: string) => ({
      name,
      description: `The ${name} tool.`,
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    });
    const image = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0KGgo=' };
    const conversation = request({
      tools: [tool('read_file'), tool('write_file'), tool('shell')],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Look at this' }, image] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'shell', input: { cmd: 'ls' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', callId: 'toolu_1', output: 'a.ts', isError: false },
            { type: 'text', text: 'Now explain.' },
          ],
        },
      ],
    });
    done(await collect(providerFor(server).stream(conversation, new AbortController().signal)));

    const body = server.requests[0]?.body;
    const ephemeral = { type: 'ephemeral' };
    expect(body?.system).toEqual([{ type: 'text', text: 'You are a test.', cache_control: ephemeral }]);
    expect(body?.tools?.map((t) => t.cache_control)).toEqual([undefined, undefined, ephemeral]);
    expect(body?.tools?.[0]).toMatchObject({ name: 'read_file', input_schema: { type: 'object' } });
    const messages = body?.messages ?? [];
    expect(messages[0]?.content).toEqual([
      { type: 'text', text: 'Look at this' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
    ]);
    expect(messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.ts', is_error: false },
      { type: 'text', text: 'Now explain.', cache_control: ephemeral },
    ]);
    expect(countBreakpoints(body)).toBe(3);
    expect(countBreakpoints(body)).toBeLessThanOrEqual(4);
  });

  it('retries a 529 and then succeeds, with a visible retry event', async () => {
    await using server = await fakeMessagesApi([
      apiErrorReply(529, 'overloaded_error', 'Overloaded'),
      textReply('back'),
    ]);
    const events = await collect(providerFor(server).stream(request(), new AbortController().signal));

    const retry = events.find((event) => event.type === 'retry');
    expect(retry).toMatchObject({ type: 'retry', attempt: 2, discard: false });
    expect(retry?.type === 'retry' && retry.reason).toContain('529');
    expect(events.indexOf(retry!)).toBe(0);
    expect(textOf(events)).toBe('back');
    done(events);
    expect(server.requests).toHaveLength(2);
  });

  it('honours retry-after on a 429', async () => {
    await using server = await fakeMessagesApi([
      apiErrorReply(429, 'rate_limit_error', 'Slow down', { 'retry-after': '1' }),
      textReply('ok'),
    ]);
    const started = Date.now();
    const events = await collect(providerFor(server).stream(request(), new AbortController().signal));
    const elapsed = Date.now() - started;

    expect(events[0]).toMatchObject({ type: 'retry', delayMs: 1000, discard: false });
    done(events);
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(3000);
  });

  it('retries a connection dropped mid-stream, telling the caller to discard what it got', async () => {
    await using server = await fakeMessagesApi([
      textReply('This reply will be cut off half-way through.', { dropAfterContentEvents: 3 }),
      textReply('Second try, complete.'),
    ]);
    const events = await collect(providerFor(server).stream(request(), new AbortController().signal));

    const retryAt = events.findIndex((event) => event.type === 'retry');
    expect(retryAt).toBeGreaterThan(0);
    expect(textOf(events.slice(0, retryAt))).toBe('This reply will be cut off half-way through.'.slice(0, 5));
    expect(events[retryAt]).toMatchObject({ type: 'retry', attempt: 2, discard: true });
    expect(textOf(events.slice(retryAt))).toBe('Second try, complete.');
    expect(done(events).message.content).toEqual([{ type: 'text', text: 'Second try, complete.' }]);
    expect(await server.requests[0]?.finished).toBe('dropped');
  });

  it('retries an overloaded error sent inside the stream', async () => {
    await using server = await fakeMessagesApi([
      textReply('Partial answer', {
        streamError: { afterContentEvents: 2, errorType: 'overloaded_error', message: 'Overloaded' },
      }),
      textReply('Full answer.'),
    ]);
    const events = await collect(providerFor(server).stream(request(), new AbortController().signal));
    const retry = events.find((event) => event.type === 'retry');
    expect(retry).toMatchObject({ attempt: 2, discard: true });
    expect(retry?.type === 'retry' && retry.reason).toContain('overloaded_error');
    expect(done(events).message.content).toEqual([{ type: 'text', text: 'Full answer.' }]);
  });

  it('retries a connection refused before any response, without discarding', async () => {
    await using server = await fakeMessagesApi([{ type: 'hang_up' }, textReply('ok')]);
    const events = await collect(providerFor(server).stream(request(), new AbortController().signal));
    expect(events[0]).toMatchObject({ type: 'retry', attempt: 2, discard: false });
    expect(done(events).message.content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('fails a refused connection as a connection error after the retries', async () => {
    const port = await closedPort();
    const provider = createAnthropicProvider({
      apiKey: API_KEY,
      baseURL: `http://127.0.0.1:${port}`,
      backoff: { baseMs: 5, capMs: 20 },
      maxRetries: 2,
    });
    await provider.warm!(); // a refused warm-up is no failure
    const events = await collect(provider.stream(request(), new AbortController().signal));
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(2);
    expect(failed(events).error.kind).toBe('connection');
    expect(failed(events).error.message).toMatch(
      /Could not reach the Anthropic API after 3 attempts \(.*ECONNREFUSED/,
    );
  });

  it('gives up after the configured retries', async () => {
    const unavailable = apiErrorReply(503, 'api_error', 'Try later');
    await using server = await fakeMessagesApi([unavailable, unavailable, unavailable]);
    const events = await collect(providerFor(server, [], 2).stream(request(), new AbortController().signal));

    expect(
      events
        .filter((event) => event.type === 'retry')
        .map((event) => event.type === 'retry' && event.attempt),
    ).toEqual([2, 3]);
    expect(failed(events).error).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(failed(events).error.message).toContain('3 attempts');
    expect(server.requests).toHaveLength(3);
  });

  it('fails a 401 at once as an authentication error that never shows the key', async () => {
    const debug: string[] = [];
    await using server = await fakeMessagesApi([
      // A server that echoes the key back: the provider must still not repeat it.
      apiErrorReply(401, 'authentication_error', `invalid x-api-key: ${API_KEY}`),
      textReply('never sent'),
    ]);
    const events = await collect(providerFor(server, debug).stream(request(), new AbortController().signal));

    const { error } = failed(events);
    expect(error.kind).toBe('authentication');
    expect(error.status).toBe(401);
    expect(error.message).toContain('ANTHROPIC_API_KEY');
    expect(JSON.stringify(events)).not.toContain(API_KEY);
    expect(debug.join('\n')).not.toContain(API_KEY);
    expect(debug.length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [400, 'invalid_request_error', 'bad_request'],
    [403, 'permission_error', 'authentication'],
    [404, 'not_found_error', 'bad_request'],
    [413, 'request_too_large', 'bad_request'],
  ] as const)('never retries a %i', async (status, type, kind) => {
    await using server = await fakeMessagesApi([
      apiErrorReply(status, type, 'nope'),
      textReply('never sent'),
    ]);
    const events = await collect(providerFor(server).stream(request(), new AbortController().signal));
    expect(events).toHaveLength(1);
    expect(failed(events).error).toMatchObject({ kind, status });
    expect(server.requests).toHaveLength(1);
  });

  it('maps a 400 "prompt is too long" to context_overflow', async () => {
    await using server = await fakeMessagesApi([
      apiErrorReply(400, 'invalid_request_error', 'prompt is too long: 212345 tokens > 200000 maximum'),
    ]);
    const events = await collect(providerFor(server).stream(request(), new AbortController().signal));
    expect(failed(events).error).toMatchObject({ kind: 'context_overflow', status: 400 });
    expect(failed(events).error.message).toContain('212345 tokens');
  });

  it('stops quickly when aborted mid-stream, and closes the connection', async () => {
    await using server = await fakeMessagesApi([textReply('x'.repeat(200), { chunkDelayMs: 50 })]);
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    let abortedAt = 0;
    for await (const event of providerFor(server).stream(request(), controller.signal)) {
      events.push(event);
      if (event.type === 'text_delta' && abortedAt === 0) {
        abortedAt = Date.now();
        controller.abort();
      }
    }
    const took = Date.now() - abortedAt;

    expect(failed(events).error.kind).toBe('aborted');
    expect(events.filter((event) => event.type === 'error' || event.type === 'message_done')).toHaveLength(1);
    expect(took).toBeLessThan(250);
    expect(await server.requests[0]?.finished).toBe('client_closed');
  });

  it('closes the connection when the caller stops reading', async () => {
    await using server = await fakeMessagesApi([textReply('y'.repeat(100), { chunkDelayMs: 20 })]);
    for await (const event of providerFor(server).stream(request(), new AbortController().signal)) {
      if (event.type === 'text_delta') break;
    }
    expect(await server.requests[0]?.finished).toBe('client_closed');
  });

  it('stops a backoff wait when aborted', async () => {
    await using server = await fakeMessagesApi([
      apiErrorReply(429, 'rate_limit_error', 'Slow down', { 'retry-after': '30' }),
    ]);
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    const started = Date.now();
    for await (const event of providerFor(server).stream(request(), controller.signal)) {
      events.push(event);
      if (event.type === 'retry') controller.abort();
    }
    expect(events.map((event) => event.type)).toEqual(['retry', 'error']);
    expect(failed(events).error.kind).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('warming the HTTP client while the executor starts', () => {
  it('opens the connection and sends nothing: the first request is still the first thing the API sees, over that connection', async () => {
    await using server = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'text', text: 'warm' }],
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    ]);
    const provider = providerFor(server);
    expect(provider.warm).toBeTypeOf('function');
    await provider.warm!();
    await until(() => server.connections === 1);
    expect(server.requests).toHaveLength(0);
    expect(textOf(await collect(provider.stream(request(), new AbortController().signal)))).toBe('warm');
    expect(server.requests).toHaveLength(1);
    expect(server.connections).toBe(1);
  });

  it('opens a new connection when the server closed the warmed one before the first request', async () => {
    await using server = await fakeMessagesApi([textReply('fresh')]);
    const provider = providerFor(server);
    await provider.warm!();
    await until(() => server.connections === 1);
    server.closeIdleConnections();
    // The server's close reaches the client's socket on the next turns of this process's event loop.
    await sleep(20);
    const events = await collect(provider.stream(request(), new AbortController().signal));
    expect(events.filter((event) => event.type === 'retry')).toEqual([]);
    expect(textOf(events)).toBe('fresh');
    expect(server.connections).toBe(2);
  });

  it('reuses the connection for the next request', async () => {
    await using server = await fakeMessagesApi([textReply('one'), textReply('two')]);
    const provider = providerFor(server);
    await provider.warm!();
    expect(textOf(await collect(provider.stream(request(), new AbortController().signal)))).toBe('one');
    expect(textOf(await collect(provider.stream(request(), new AbortController().signal)))).toBe('two');
    expect(server.connections).toBe(1);
  });

  it("never uses Node's fetch (undici): requests go over node:http", async () => {
    await using server = await fakeMessagesApi([textReply('no undici')]);
    const calls: unknown[] = [];
    const nodeFetch = globalThis.fetch;
    globalThis.fetch = (...args: Parameters<typeof fetch>) => {
      calls.push(args[0]);
      return nodeFetch(...args);
    };
    try {
      const provider = providerFor(server);
      await provider.warm!();
      expect(textOf(await collect(provider.stream(request(), new AbortController().signal)))).toBe(
        'no undici',
      );
    } finally {
      globalThis.fetch = nodeFetch;
    }
    expect(calls).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('leaves a fetch the caller gave alone', () => {
    const provider = createAnthropicProvider({ apiKey: API_KEY, fetch: globalThis.fetch });
    expect(provider.warm).toBeUndefined();
  });
});

async function until(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await sleep(5);
  }
}

/** A local port nothing listens on (it did a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
