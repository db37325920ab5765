import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import type { ServeErrorBody } from '../../shared/serve-api.js';
import { ServeError } from './serve-error.js';

/**
 * Reads a JSON body of at most `maxBytes` and checks it against `schema`.
 * An oversized body is refused from its Content-Length before a byte is read,
 * or as soon as the count passes the bound; bad JSON and a body that does not
 * fit the schema are 400s that say what is wrong.
 */
export async function readJson<T extends z.ZodType>(
  request: IncomingMessage,
  schema: T,
  maxBytes: number,
): Promise<z.infer<T>> {
  const type = request.headers['content-type'];
  if (type !== undefined && !/^application\/json\b/i.test(type)) {
    throw new ServeError('unsupported_media_type', `send the body as application/json, not ${type}`);
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let raw: unknown;
  try {
    raw = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new ServeError('bad_request', `the body is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new ServeError('bad_request', `the body does not fit: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

function tooLarge(maxBytes: number): ServeError {
  return new ServeError('payload_too_large', `the body is larger than ${maxBytes} bytes (--max-body-bytes)`);
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  response.end(text);
}

/**
 * The error as `{error:{code,message}}` with its status. When the request body
 * was not read to its end (an oversized one), the connection is closed after
 * the answer rather than reading the rest.
 */
export function sendError(response: ServerResponse, error: ServeError, request?: IncomingMessage): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body: ServeErrorBody = { error: { code: error.code, message: error.message } };
  if (error.code === 'unauthorized') response.setHeader('www-authenticate', 'Bearer realm="skate"');
  if (request && !request.readableEnded) response.setHeader('connection', 'close');
  sendJson(response, error.status, body);
}

/** How the client wants a run: `sse` for event streams and anything (so `curl -N` streams), `json` when it asks for JSON only. */
export function acceptedFormat(accept: string | undefined): 'sse' | 'json' {
  if (!accept) return 'sse';
  const types = accept
    .split(',')
    .map((part) => part.split(';')[0]!.trim().toLowerCase())
    .filter(Boolean);
  if (types.some((type) => type === 'text/event-stream' || type === '*/*' || type === 'text/*')) return 'sse';
  if (types.includes('application/json') || types.includes('application/*')) return 'json';
  throw new ServeError(
    'not_acceptable',
    `a run is sent as text/event-stream or application/json, not ${accept}`,
  );
}
