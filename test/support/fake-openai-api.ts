import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { awkwardChunks } from './fake-messages-api.js';

/** A tool call the fake makes; `arguments` as a string is sent as is (malformed JSON included). */
export interface FakeToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

export interface FakeOpenAiUsage {
  input: number;
  output: number;
  /** Of `input`, the tokens read from the prompt cache. */
  cached?: number;
}

/** One scripted reply, rendered in whichever format the request came in. */
export type FakeOpenAiReply =
  | {
      type: 'reply';
      reasoning?: string;
      text?: string;
      toolCalls?: FakeToolCall[];
      usage?: FakeOpenAiUsage;
      /** Chat's finish_reason; by default `tool_calls` with calls, else `stop`. */
      finish?: string;
    }
  | { type: 'failure'; status: number; body: unknown };

export interface RecordedOpenAiRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface FakeOpenAiApi extends AsyncDisposable {
  /** The `/v1` base URL to give the SDK. */
  readonly url: string;
  readonly requests: readonly RecordedOpenAiRequest[];
  readonly pending: number;
  enqueue(...replies: FakeOpenAiReply[]): void;
}

export interface FakeOpenAiOptions {
  /** Answer Ollama's `POST /api/show` with this `model_info` context length (and `num_ctx`, if given). */
  ollama?: { contextLength: number; numCtx?: number };
}

/**
 * A local server that speaks OpenAI's two formats closely enough for the real `openai` SDK:
 * `POST /v1/chat/completions` (chunks, `include_usage`, `[DONE]`) and `POST /v1/responses`
 * (typed events through `response.completed`), each from one queue of scripted replies. Tool
 * arguments stream in awkward pieces, parallel calls interleaved, as servers do.
 */
export async function fakeOpenAiApi(
  replies: FakeOpenAiReply[] = [],
  options: FakeOpenAiOptions = {},
): Promise<FakeOpenAiApi> {
  const queue = [...replies];
  const requests: RecordedOpenAiRequest[] = [];
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await readBody(req);
    const body = (safeJson(text) ?? {}) as Record<string, unknown>;
    const path = req.url ?? '';
    requests.push({ path, headers: req.headers, body });
    if (path === '/api/show' && options.ollama) {
      const { contextLength, numCtx } = options.ollama;
      return sendJson(res, 200, {
        parameters: numCtx ? `stop "<|eot_id|>"\nnum_ctx ${numCtx}` : 'stop "<|eot_id|>"',
        model_info: { 'general.architecture': 'llama', 'llama.context_length': contextLength },
      });
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/v1/responses')) {
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found' } });
    }
    const reply = queue.shift();
    if (!reply) {
      return sendJson(res, 400, {
        error: { message: `fake-openai-api: no scripted reply left for request #${requests.length}` },
      });
    }
    if (reply.type === 'failure') return sendJson(res, reply.status, reply.body);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const events =
      path === '/v1/chat/completions'
        ? chatEvents(reply, String(body.model), requests.length)
        : responsesEvents(reply, String(body.model), requests.length);
    for (const event of events) await write(res, event);
    res.end();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get pending() {
      return queue.length;
    },
    enqueue(...more) {
      queue.push(...more);
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

type Reply = Extract<FakeOpenAiReply, { type: 'reply' }>;

function argumentsText(call: FakeToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

/** The pieces of every call's arguments, interleaved: call 0's first, call 1's first, call 0's second... */
function interleaved(calls: FakeToolCall[]): { call: number; piece: string }[] {
  const pieces = calls.map((call) => awkwardChunks(argumentsText(call)));
  const out: { call: number; piece: string }[] = [];
  for (let round = 0; pieces.some((each) => round < each.length); round++) {
    pieces.forEach((each, call) => {
      if (round < each.length) out.push({ call, piece: each[round]! });
    });
  }
  return out;
}

function chatEvents(reply: Reply, model: string, number: number): string[] {
  const id = `chatcmpl-fake-${number}`;
  const chunk = (delta: unknown, finish: string | null = null): string =>
    sse({
      id,
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
  const calls = reply.toolCalls ?? [];
  const usage = reply.usage ?? { input: 10, output: 5 };
  return [
    chunk({ role: 'assistant', content: '' }),
    ...awkwardChunks(reply.reasoning ?? '').map((piece) => chunk({ reasoning_content: piece })),
    ...awkwardChunks(reply.text ?? '').map((piece) => chunk({ content: piece })),
    ...calls.map((call, index) =>
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    ),
    ...interleaved(calls).map(({ call, piece }) =>
      chunk({ tool_calls: [{ index: call, function: { arguments: piece } }] }),
    ),
    chunk({}, reply.finish ?? (calls.length > 0 ? 'tool_calls' : 'stop')),
    sse({
      id,
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model,
      choices: [],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
        prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
      },
    }),
    'data: [DONE]\n\n',
  ];
}

function responsesEvents(reply: Reply, model: string, number: number): string[] {
  const id = `resp_fake_${number}`;
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
  const response = (status: string, output: unknown[], usage?: unknown): Record<string, unknown> => ({
    id,
    object: 'response',
    created_at: 1_700_000_000,
    model,
    status,
    output,
    error: null,
    incomplete_details: null,
    ...(usage !== undefined && { usage }),
  });
  const out: string[] = [event('response.created', { response: response('in_progress', []) })];
  const output: unknown[] = [];
  let index = 0;
  if (reply.reasoning) {
    const item = { type: 'reasoning', id: `rs_${number}`, summary: [] as unknown[] };
    out.push(event('response.output_item.added', { output_index: index, item }));
    for (const delta of awkwardChunks(reply.reasoning)) {
      out.push(
        event('response.reasoning_summary_text.delta', {
          item_id: item.id,
          output_index: index,
          summary_index: 0,
          delta,
        }),
      );
    }
    const done = { ...item, summary: [{ type: 'summary_text', text: reply.reasoning }] };
    out.push(event('response.output_item.done', { output_index: index, item: done }));
    output.push(done);
    index++;
  }
  if (reply.text) {
    const item = {
      type: 'message',
      id: `msg_${number}`,
      role: 'assistant',
      status: 'in_progress',
      content: [],
    };
    out.push(event('response.output_item.added', { output_index: index, item }));
    for (const delta of awkwardChunks(reply.text)) {
      out.push(
        event('response.output_text.delta', {
          item_id: item.id,
          output_index: index,
          content_index: 0,
          delta,
          logprobs: [],
        }),
      );
    }
    const done = {
      ...item,
      status: 'completed',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    };
    out.push(event('response.output_item.done', { output_index: index, item: done }));
    output.push(done);
    index++;
  }
  const calls = reply.toolCalls ?? [];
  const first = index;
  calls.forEach((call, offset) => {
    const item = {
      type: 'function_call',
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      arguments: '',
      status: 'in_progress',
    };
    out.push(event('response.output_item.added', { output_index: first + offset, item }));
  });
  for (const { call, piece } of interleaved(calls)) {
    out.push(
      event('response.function_call_arguments.delta', {
        item_id: `fc_${calls[call]!.id}`,
        output_index: first + call,
        delta: piece,
      }),
    );
  }
  calls.forEach((call, offset) => {
    const args = argumentsText(call);
    const itemId = `fc_${call.id}`;
    out.push(
      event('response.function_call_arguments.done', {
        item_id: itemId,
        output_index: first + offset,
        arguments: args,
      }),
    );
    const done = {
      type: 'function_call',
      id: itemId,
      call_id: call.id,
      name: call.name,
      arguments: args,
      status: 'completed',
    };
    out.push(event('response.output_item.done', { output_index: first + offset, item: done }));
    output.push(done);
  });
  const usage = reply.usage ?? { input: 10, output: 5 };
  out.push(
    event('response.completed', {
      response: response('completed', output, {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: usage.cached ?? 0 },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.output,
      }),
    }),
  );
  return out;
}

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function write(res: ServerResponse, chunk: string): Promise<void> {
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
