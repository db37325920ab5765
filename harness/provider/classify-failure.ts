import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk/core/error';
import type { ProviderErrorKind } from './model-provider.js';
import { retryAfterMs } from './retry-delay.js';

/** What one failed attempt means: the error to report, and whether to try again. */
export interface Failure {
  kind: ProviderErrorKind;
  /** What went wrong, for the user; the caller adds the attempt count. */
  detail: string;
  status?: number;
  retryable: boolean;
  /** A short reason for a `retry` event: "529 overloaded_error", "connection dropped". */
  reason: string;
  /** How long the server asked us to wait (retry-after-ms / retry-after). */
  retryAfterMs?: number;
}

/** 429s that say the spend limit is reached: waiting minutes will not lift them. */
const SPEND_LIMIT_CODES = new Set(['contract_spend_limit_reached', 'enforced_spend_limit_reached']);

/** Codes of socket-level failures, found anywhere in an error's cause chain. */
const NETWORK_CODES =
  /^(E(CONNRESET|CONNREFUSED|CONNABORTED|PIPE|TIMEDOUT|NOTFOUND|AI_AGAIN|HOSTUNREACH|NETUNREACH)|UND_ERR_)/;

/**
 * Sorts an error thrown by the SDK (or by fetch while the body streamed) into a
 * ProviderErrorKind and a retry decision. Retried: 408, 429, 5xx (529
 * included), overloaded/api errors sent inside the stream, dropped or refused
 * connections. Never retried: other 4xx (400, 401, 403, 404, 413, ...).
 */
export function classifyFailure(error: unknown): Failure {
  if (error instanceof APIUserAbortError) {
    return { kind: 'aborted', detail: 'The request was cancelled.', retryable: false, reason: 'aborted' };
  }
  if (error instanceof APIConnectionError) {
    const cause = describeCause(error.cause) ?? error.message;
    return { kind: 'connection', detail: cause, retryable: true, reason: `connection failed (${cause})` };
  }
  if (error instanceof APIError) return classifyApiError(error);
  if (isNetworkError(error)) {
    const cause = describeCause(error) ?? 'connection lost';
    return { kind: 'connection', detail: cause, retryable: true, reason: `connection dropped (${cause})` };
  }
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { kind: 'unavailable', detail: `Unexpected failure: ${detail}`, retryable: false, reason: detail };
}

function classifyApiError(error: APIError): Failure {
  const status = error.status;
  const type = error.type ?? 'error';
  const said = error.apiMessage ?? error.message;
  const reason = status === undefined ? `${type} in the stream` : `${status} ${type}`;
  const detail = `${reason}: ${said}`;
  const shouldRetry = error.headers?.get('x-should-retry');

  if (status === undefined) {
    // An `event: error` inside a 200 stream: only its type says what it is.
    const transient = ['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error'].includes(type);
    if (transient) return { kind: 'unavailable', detail, retryable: true, reason };
  }
  if (status === 401 || status === 403 || type === 'authentication_error' || type === 'permission_error') {
    return {
      kind: 'authentication',
      detail: `The Anthropic API refused the credentials (${detail}). Check ANTHROPIC_API_KEY.`,
      ...(status !== undefined ? { status } : {}),
      retryable: false,
      reason,
    };
  }
  if ((status === 400 || type === 'invalid_request_error') && isPromptTooLong(said)) {
    return {
      kind: 'context_overflow',
      detail: `The conversation no longer fits the model's context window (${detail}).`,
      ...(status !== undefined ? { status } : {}),
      retryable: false,
      reason,
    };
  }
  if (status === undefined) return { kind: 'bad_request', detail, retryable: false, reason };
  const transient = status === 408 || status === 429 || status >= 500;
  if (transient && shouldRetry !== 'false' && !SPEND_LIMIT_CODES.has(error.errorCode ?? '')) {
    return {
      kind: 'unavailable',
      detail,
      status,
      retryable: true,
      reason,
      retryAfterMs: retryAfterMs(error.headers),
    };
  }
  return { kind: transient ? 'unavailable' : 'bad_request', detail, status, retryable: false, reason };
}

/** The API has no error code for this; its message reads "prompt is too long: N tokens > M maximum". */
function isPromptTooLong(message: string): boolean {
  return /prompt is too long|exceeds? the (model's )?(maximum )?context|context window/i.test(message);
}

function isNetworkError(error: unknown): error is Error {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.test(code)) return true;
    // Fetch's TypeErrors, from undici (a caller's own fetch) or ours on node:http, which says the same:
    // a body cut off mid-stream is `TypeError: terminated`, a failed connect `TypeError: fetch failed`.
    if (e instanceof TypeError && (e.message === 'terminated' || e.message === 'fetch failed')) return true;
  }
  return false;
}

/** The innermost message of a cause chain: "other side closed", "connect ECONNREFUSED ...". */
function describeCause(error: unknown): string | undefined {
  let message: string | undefined;
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) message = e.message;
  return message;
}
