import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer, type ServerOptions as TlsOptions } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import * as z from 'zod';

/**
 * Which front of the Messages API the fake is: Anthropic's own (`POST /v1/messages`, SSE), Claude
 * on Amazon Bedrock (`POST /model/{id}/invoke-with-response-stream`, AWS event-stream frames each
 * carrying one event as base64 JSON), or Claude on Vertex AI (`POST /v1/projects/{p}/locations/{r}/
 * publishers/anthropic/models/{id}:streamRawPredict`, SSE). Bedrock and Vertex take the model from
 * the path and `anthropic_version` in the body.
 */
export type MessagesDialect = 'anthropic' | 'bedrock' | 'vertex';

/** A content block the fake streams, as the API would produce it. */
export type FakeBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface FakeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** One scripted reply; each request takes the next one off the queue. */
export type FakeReply =
  | {
      type: 'message';
      blocks: FakeBlock[];
      stopReason?: string;
      usage?: FakeUsage;
      /** Waits this long before each event after message_start, so a test can cancel mid-stream. */
      chunkDelayMs?: number;
      /** Destroys the socket after this many content_block_* events: a connection dropped mid-stream. */
      dropAfterContentEvents?: number;
      /** Sends an SSE `error` event after this many content events and ends the stream, as the API does when overloaded mid-reply. */
      streamError?: { afterContentEvents: number; errorType: string; message: string };
    }
  | { type: 'failure'; status: number; body: unknown; headers?: Record<string, string> }
  /** Destroys the socket before any response: a refused or reset connection. */
  | { type: 'hang_up' };

/** How a reply ended, as the server saw it. */
export type ReplyOutcome = 'completed' | 'client_closed' | 'dropped';

const RequestBody = z.looseObject({
  model: z.string(),
  max_tokens: z.number(),
  stream: z.boolean().optional(),
  system: z
    .union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))])
    .optional(),
  messages: z.array(
    z.looseObject({
      role: z.enum(['user', 'assistant']),
      content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
    }),
  ),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  thinking: z.looseObject({ type: z.string() }).optional(),
});
export type RecordedBody = z.infer<typeof RequestBody>;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when it was not a valid Messages request. */
  body: RecordedBody | undefined;
  finished: Promise<ReplyOutcome>;
  /** Each SSE event of a streamed reply and when it was written (`performance.now()`), for latency benches. */
  sent: { event: string; at: number }[];
}

export interface FakeMessagesApi extends AsyncDisposable {
  /** The base URL to give the SDK. */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** `performance.now()` as each request arrived (its headers read), for timing a client's start. */
  readonly arrivals: readonly number[];
  /** TCP connections accepted so far: a warmed connection the SDK then reuses counts once. */
  readonly connections: number;
  /** Replies not taken yet. */
  readonly pending: number;
  enqueue(...replies: FakeReply[]): void;
  /**
   * Replies for the requests whose system prompt contains `marker` (a sub-agent's task is in its
   * own system prompt), taken before the common queue: children running at once are scripted each
   * on its own, whatever order their requests come in.
   */
  enqueueFor(marker: string, ...replies: FakeReply[]): void;
  /** Closes the connections that carry no request now (opened ahead, or kept alive), as a server does with idle ones. */
  closeIdleConnections(): void;
}

/** A failure reply with the API's error body: `{ type: 'error', error: { type, message } }`. */
export function apiErrorReply(
  status: number,
  errorType: string,
  message: string,
  headers: Record<string, string> = {},
): FakeReply {
  return { type: 'failure', status, body: { type: 'error', error: { type: errorType, message } }, headers };
}

/**
 * A local server that speaks the Messages API closely enough for the real SDK:
 * `POST /v1/messages` answers with server-sent events for `stream: true` and
 * with JSON otherwise, from a queue of scripted replies, and records every
 * request. A request that finds the queue empty gets a 400 that says so.
 */
export async function fakeMessagesApi(
  replies: FakeReply[] = [],
  /** Serves HTTPS with this key and certificate (for `localhost`), as the real API does. */
  tls?: Pick<TlsOptions, 'key' | 'cert'>,
  dialect: MessagesDialect = 'anthropic',
): Promise<FakeMessagesApi> {
  const queue = [...replies];
  const routes = new Map<string, FakeReply[]>();
  const requests: RecordedRequest[] = [];
  const arrivals: number[] = [];
  let connections = 0;

  /** Connections that have not carried a request yet. */
  const unused = new Set<Socket>();
  const listener: RequestListener = (req, res) => {
    arrivals.push(performance.now());
    unused.delete(req.socket);
    let settle: (outcome: ReplyOutcome) => void = () => {};
    const finished = new Promise<ReplyOutcome>((resolve) => {
      settle = resolve;
    });
    const record: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: undefined,
      finished,
      sent: [],
    };
    requests.push(record);
    res.on('close', () => settle(res.writableFinished ? 'completed' : 'client_closed'));
    // A client that goes away mid-request is an outcome to record, not a crash of the test run.
    handle(req, res, record, requests.length, queue, settle, dialect, routes).catch(() => res.destroy());
  };
  const server = tls ? createTlsServer(tls, listener) : createServer(listener);
  server.on('connection', () => connections++);
  // The socket a request arrives on: under TLS, the TLS socket over the TCP one.
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    requests,
    arrivals,
    get connections() {
      return connections;
    },
    get pending() {
      return queue.length + [...routes.values()].reduce((sum, replies) => sum + replies.length, 0);
    },
    enqueue(...more) {
      queue.push(...more);
    },
    enqueueFor(marker, ...more) {
      routes.set(marker, [...(routes.get(marker) ?? []), ...more]);
    },
    closeIdleConnections() {
      server.closeIdleConnections(); // kept-alive ones; Node's leaves those that never carried a request
      for (const socket of unused) socket.destroy();
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  record: RecordedRequest,
  number: number,
  queue: FakeReply[],
  settle: (outcome: ReplyOutcome) => void,
  dialect: MessagesDialect,
  routes: ReadonlyMap<string, FakeReply[]> = new Map(),
): Promise<void> {
  const text = await readBody(req);
  const route = req.method === 'POST' ? routeOf(dialect, req.url ?? '') : undefined;
  if (!route) {
    return sendJson(
      res,
      404,
      errorBody('not_found_error', `fake-messages-api: no route ${req.method} ${req.url}`),
    );
  }
  const json = safeJson(text);
  const body =
    dialect === 'anthropic' || typeof json !== 'object' || json === null
      ? json
      : { ...json, model: route.model, ...(route.stream !== undefined && { stream: route.stream }) };
  const parsed = RequestBody.safeParse(body);
  if (!parsed.success) {
    return sendJson(
      res,
      400,
      errorBody('invalid_request_error', `fake-messages-api: ${parsed.error.message}`),
    );
  }
  record.body = parsed.data;
  const system = parsed.data.system;
  const systemText = typeof system === 'string' ? system : (system ?? []).map((block) => block.text).join('');
  const routed = [...routes].find(([marker, replies]) => replies.length > 0 && systemText.includes(marker));
  const reply = routed ? routed[1].shift() : queue.shift();
  if (!reply) {
    const message = `fake-messages-api: no scripted reply left for request #${number}`;
    return sendJson(res, 400, errorBody('invalid_request_error', message));
  }
  if (reply.type === 'hang_up') {
    req.socket.destroy();
    return settle('dropped');
  }
  if (reply.type === 'failure') return sendJson(res, reply.status, reply.body, reply.headers);
  const id = `msg_fake_${number}`;
  if (!parsed.data.stream) return sendJson(res, 200, wholeMessage(id, parsed.data.model, reply));
  await streamMessage(
    res,
    id,
    parsed.data.model,
    reply,
    number,
    () => settle('dropped'),
    record.sent,
    dialect,
  );
}

function routeOf(dialect: MessagesDialect, url: string): { model?: string; stream?: boolean } | undefined {
  if (dialect === 'anthropic') return url === '/v1/messages' ? {} : undefined;
  if (dialect === 'bedrock') {
    const match = /^\/model\/([^/]+)\/(invoke-with-response-stream|invoke)$/.exec(url);
    return match ? { model: decodeURIComponent(match[1]!), stream: match[2] !== 'invoke' } : undefined;
  }
  const match =
    /^\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/([^/:]+):(streamRawPredict|rawPredict)$/.exec(
      url,
    );
  return match ? { model: decodeURIComponent(match[1]!) } : undefined;
}

const eventStream = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

/** One Bedrock `chunk` frame carrying a Messages API event. */
function bedrockFrame(data: unknown): Buffer {
  const bytes = Buffer.from(JSON.stringify(data)).toString('base64');
  return Buffer.from(
    eventStream.encode({
      headers: {
        ':event-type': { type: 'string', value: 'chunk' },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'event' },
      },
      body: Buffer.from(JSON.stringify({ bytes })),
    }),
  );
}

async function streamMessage(
  res: ServerResponse,
  id: string,
  model: string,
  reply: Extract<FakeReply, { type: 'message' }>,
  number: number,
  onDrop: () => void,
  sent: RecordedRequest['sent'],
  dialect: MessagesDialect = 'anthropic',
): Promise<void> {
  const frame = (event: string, data: unknown): string | Buffer =>
    dialect === 'bedrock' ? bedrockFrame(data) : `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  res.writeHead(200, {
    'content-type':
      dialect === 'bedrock' ? 'application/vnd.amazon.eventstream' : 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': `req_fake_${number}`,
  });
  const usage = fullUsage(reply.usage);
  const start = {
    ...wholeMessage(id, model, reply),
    content: [],
    stop_reason: null,
    usage: { ...usage, output_tokens: 1 },
  };
  const events: [string, unknown][] = [
    ['message_start', { type: 'message_start', message: start }],
    ['ping', { type: 'ping' }],
    ...reply.blocks.flatMap((block, index) => blockEvents(block, index)),
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: stopReasonOf(reply), stop_sequence: null, stop_details: null, container: null },
        // Cumulative counts; null means "as in message_start", which the client must cope with.
        usage: {
          output_tokens: usage.output_tokens,
          input_tokens: null,
          cache_creation_input_tokens: null,
          cache_read_input_tokens: null,
        },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ];
  let contentEvents = 0;
  for (const [index, [event, data]] of events.entries()) {
    if (index > 0 && reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    if (res.destroyed) return;
    sent.push({ event, at: performance.now() });
    await write(res, frame(event, data));
    if (event.startsWith('content_block_')) contentEvents++;
    if (reply.dropAfterContentEvents !== undefined && contentEvents >= reply.dropAfterContentEvents) {
      res.socket?.destroy();
      return onDrop();
    }
    if (reply.streamError && contentEvents >= reply.streamError.afterContentEvents) {
      const { errorType, message } = reply.streamError;
      await write(res, frame('error', errorBody(errorType, message)));
      break;
    }
  }
  res.end();
}

function blockEvents(block: FakeBlock, index: number): [string, unknown][] {
  const start = (content_block: unknown): [string, unknown] => [
    'content_block_start',
    { type: 'content_block_start', index, content_block },
  ];
  const delta = (d: unknown): [string, unknown] => [
    'content_block_delta',
    { type: 'content_block_delta', index, delta: d },
  ];
  const stop: [string, unknown] = ['content_block_stop', { type: 'content_block_stop', index }];
  switch (block.type) {
    case 'text':
      return [
        start({ type: 'text', text: '', citations: null }),
        ...awkwardChunks(block.text).map((text) => delta({ type: 'text_delta', text })),
        stop,
      ];
    case 'thinking':
      return [
        start({ type: 'thinking', thinking: '', signature: '' }),
        ...awkwardChunks(block.thinking).map((thinking) => delta({ type: 'thinking_delta', thinking })),
        delta({ type: 'signature_delta', signature: block.signature }),
        stop,
      ];
    case 'redacted_thinking':
      return [start(block), stop];
    case 'tool_use':
      return [
        start({ type: 'tool_use', id: block.id, name: block.name, input: {}, caller: { type: 'direct' } }),
        // The API often opens with an empty chunk; the rest split mid-key, mid-escape, mid-number.
        delta({ type: 'input_json_delta', partial_json: '' }),
        ...awkwardChunks(JSON.stringify(block.input)).map((partial_json) =>
          delta({ type: 'input_json_delta', partial_json }),
        ),
        stop,
      ];
  }
}

/** Splits text into chunks of 1, 4, 2, 7, 3, ... characters: never at a convenient place. */
/** How the fake cuts a text (or thinking) block into deltas: 1, 4, 2, 7, 3 characters in turn. */
export function awkwardChunks(text: string): string[] {
  const sizes = [1, 4, 2, 7, 3];
  const chunks: string[] = [];
  for (let at = 0, i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length]!;
    chunks.push(text.slice(at, at + size));
    at += size;
  }
  return chunks;
}

function wholeMessage(id: string, model: string, reply: Extract<FakeReply, { type: 'message' }>): object {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: reply.blocks.map((block) =>
      block.type === 'text'
        ? { ...block, citations: null }
        : block.type === 'tool_use'
          ? { ...block, caller: { type: 'direct' } }
          : block,
    ),
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: fullUsage(reply.usage),
  };
}

function stopReasonOf(reply: Extract<FakeReply, { type: 'message' }>): string {
  return (
    reply.stopReason ?? (reply.blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn')
  );
}

function fullUsage(usage: FakeUsage = {}): Required<FakeUsage> {
  return {
    input_tokens: usage.input_tokens ?? 10,
    output_tokens: usage.output_tokens ?? 5,
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
  };
}

function errorBody(type: string, message: string): object {
  return { type: 'error', error: { type, message } };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Resolves once the chunk is handed to the socket, so a drop after it cannot lose it. */
function write(res: ServerResponse, chunk: string | Buffer): Promise<void> {
  return new Promise((resolve) => res.write(chunk, () => resolve()));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
