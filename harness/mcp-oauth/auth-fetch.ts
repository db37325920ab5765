import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isLoopbackHost } from '../executor-relay/host-check.js';
import { inertText } from '../terminal/inert-text.js';
import { McpAuthError } from './mcp-auth-error.js';

/** How long one request to a server's OAuth endpoints may take. */
export const AUTH_REQUEST_TIMEOUT_MS = 15_000;
/** Bytes of one answer read (metadata, a registration, tokens are a few KB). */
export const MAX_AUTH_RESPONSE_BYTES = 256 * 1024;

/**
 * A URL the harness will send an OAuth request to, or the user's browser to: https, or http on
 * this machine's loopback only. The remote server (which may be hostile) names the authorization
 * server and its endpoints; nothing else (`file:`, plain http across a network) is followed.
 */
export function checkAuthUrl(url: string | URL, what: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    throw new McpAuthError('insecure_url', `${what} is not a URL: ${inertText(String(url).slice(0, 200))}`);
  }
  if (parsed.protocol === 'https:') return parsed;
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return parsed;
  throw new McpAuthError(
    'insecure_url',
    `${what} ${inertText(parsed.href.slice(0, 200))} is refused: only https:// (or http:// on this machine's loopback) is used for OAuth`,
  );
}

/**
 * The fetch the SDK's auth client is given: every URL checked (`checkAuthUrl`), redirects never
 * followed here (the SDK follows same-origin ones by calling this again, so each hop is checked),
 * a timeout, and the answer read whole up to `MAX_AUTH_RESPONSE_BYTES`.
 */
export function authFetch(options: { timeoutMs?: number; maxBytes?: number } = {}): FetchLike {
  const timeoutMs = options.timeoutMs ?? AUTH_REQUEST_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MAX_AUTH_RESPONSE_BYTES;
  return async (url, init) => {
    checkAuthUrl(url, 'an OAuth endpoint');
    const timeout = AbortSignal.timeout(timeoutMs);
    const signals = [timeout, init?.signal].filter((s): s is AbortSignal => s != null);
    let response: Response;
    let body: Uint8Array<ArrayBuffer>;
    try {
      response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.any(signals) });
      body = await boundedBody(response, String(url), maxBytes);
    } catch (error) {
      if (timeout.aborted)
        throw new McpAuthError('timeout', `${inertText(String(url))} did not answer within ${timeoutMs} ms`);
      throw error;
    }
    const headers = new Headers(response.headers);
    // The body is whole now: its length is known, its encoding undone.
    headers.delete('content-encoding');
    headers.delete('content-length');
    const empty = [101, 204, 205, 304].includes(response.status);
    return new Response(empty ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

async function boundedBody(
  response: Response,
  url: string,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new McpAuthError(
        'bad_response',
        `${inertText(url)} answered more than ${maxBytes} bytes; an OAuth answer is a few KB`,
      );
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
