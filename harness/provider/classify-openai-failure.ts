import { APIConnectionError, APIError, APIUserAbortError } from 'openai/core/error';
import { classifyFailure, type Failure } from './classify-failure.js';
import { retryAfterMs } from './retry-delay.js';

/**
 * `classifyFailure` for the `openai` SDK's errors (its own classes, shaped like the Anthropic
 * SDK's). Retried: 408, 409, 429 (not `insufficient_quota`), 5xx, dropped or refused connections.
 * A 400 whose code or message says the context is full is `context_overflow`, so the engine compacts.
 */
export function classifyOpenAiFailure(error: unknown, keyHint: string): Failure {
  if (error instanceof APIUserAbortError) {
    return { kind: 'aborted', detail: 'The request was cancelled.', retryable: false, reason: 'aborted' };
  }
  if (error instanceof APIConnectionError) {
    const cause = innermost(error.cause) ?? error.message;
    return { kind: 'connection', detail: cause, retryable: true, reason: `connection failed (${cause})` };
  }
  if (!(error instanceof APIError)) return classifyFailure(error);
  const status = error.status;
  const code = error.code ?? error.type ?? 'error';
  const said = apiMessage(error);
  const reason = status === undefined ? `${code} in the stream` : `${status} ${code}`;
  const detail = `${reason}: ${said}`;
  const withStatus = status !== undefined ? { status } : {};
  if (status === 401 || status === 403) {
    return {
      kind: 'authentication',
      detail: `The server refused the credentials (${detail}). ${keyHint}`,
      ...withStatus,
      retryable: false,
      reason,
    };
  }
  if (code === 'context_length_exceeded' || isContextOverflow(said)) {
    return {
      kind: 'context_overflow',
      detail: `The conversation no longer fits the model's context window (${detail}).`,
      ...withStatus,
      retryable: false,
      reason,
    };
  }
  // An error event inside a 200 stream: servers send it for overloads and crashes alike.
  if (status === undefined) return { kind: 'unavailable', detail, retryable: true, reason };
  const transient = status === 408 || status === 409 || status === 429 || status >= 500;
  if (transient && code !== 'insufficient_quota') {
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

function apiMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : error.message;
}

/** OpenAI, vLLM, llama.cpp and Ollama each word it their own way. */
function isContextOverflow(message: string): boolean {
  return /context length|context window|maximum context|too many tokens|exceeds? the (available )?context|prompt is too long/i.test(
    message,
  );
}

function innermost(error: unknown): string | undefined {
  let message: string | undefined;
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) message = e.message;
  return message;
}
