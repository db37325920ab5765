import { setTimeout as sleep } from 'node:timers/promises';
import type { ContentBlock } from '../../shared/conversation.js';
import { traceStart } from '../start-trace.js';
import type { Failure } from './classify-failure.js';
import type { CompletedMessage } from './message-accumulator.js';
import type { ProviderError, ProviderEvent } from './model-provider.js';
import { type Backoff, retryDelayMs } from './retry-delay.js';

/** Folds one attempt's raw stream events into ProviderEvents and, at its end, the message. */
export interface StreamAccumulator<Raw> {
  push(event: Raw): ProviderEvent[];
  readonly producedContent: boolean;
  finish(): CompletedMessage | undefined;
  partial(): ContentBlock[];
}

export interface StreamWithRetriesOptions<Raw> {
  /** Who answers, for messages: "the Anthropic API", "the OpenAI-compatible server at host". */
  serverName: string;
  /** Sends the request; resolves to the raw event stream. */
  open(signal: AbortSignal): Promise<AsyncIterable<Raw>>;
  accumulator(): StreamAccumulator<Raw>;
  classify(error: unknown): Failure;
  /** Attempts in all (retries + 1). */
  attempts: number;
  backoff: Backoff;
  debug(line: string): void;
  redact(text: string): string;
}

/** Longer waits than this mean "not soon" (a spend or quota window): fail rather than hang. */
const MAX_SERVER_WAIT_MS = 60_000;

/**
 * One model request with Skate's own retries, for any SDK: each retry reaches the engine as a
 * `retry` event, and a stream that fails half-way is retried too (SDKs only retry until the
 * response headers arrive). Never throws; ends with one `message_done` or `error`.
 */
export async function* streamWithRetries<Raw>(
  options: StreamWithRetriesOptions<Raw>,
  signal: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const { attempts, debug, redact } = options;
  for (let attempt = 1; ; attempt++) {
    const accumulator = options.accumulator();
    let failure: Failure;
    try {
      debug(`${options.serverName}: attempt ${attempt}/${attempts}`);
      traceStart('provider: request built');
      const events = await options.open(signal);
      for await (const event of events) yield* accumulator.push(event);
      const done = accumulator.finish();
      if (done) {
        yield { type: 'message_done', ...done };
        return;
      }
      // SDKs end a stream quietly when the signal aborts it; otherwise the server hung up early.
      failure = {
        kind: 'connection',
        detail: 'the stream ended before the message did',
        retryable: true,
        reason: 'stream ended early',
      };
    } catch (error) {
      failure = options.classify(error);
    }
    if (signal.aborted || failure.kind === 'aborted') {
      yield { type: 'error', error: aborted(), partial: accumulator.partial() };
      return;
    }
    debug(`${options.serverName}: attempt ${attempt} failed: ${failure.detail}`);
    const tooLong = (failure.retryAfterMs ?? 0) > MAX_SERVER_WAIT_MS;
    if (!failure.retryable || attempt >= attempts || tooLong) {
      yield {
        type: 'error',
        error: finalError(options.serverName, failure, attempt, tooLong, redact),
        partial: accumulator.partial(),
      };
      return;
    }
    const delayMs = retryDelayMs(attempt, options.backoff, failure.retryAfterMs);
    const discard = accumulator.producedContent;
    yield { type: 'retry', attempt: attempt + 1, delayMs, reason: redact(failure.reason), discard };
    try {
      await sleep(delayMs, undefined, { signal });
    } catch {
      yield { type: 'error', error: aborted() };
      return;
    }
  }
}

function finalError(
  serverName: string,
  failure: Failure,
  attempt: number,
  tooLong: boolean,
  redact: (text: string) => string,
): ProviderError {
  let message = failure.detail;
  if (tooLong) {
    const seconds = Math.ceil((failure.retryAfterMs ?? 0) / 1000);
    message = `${capitalised(serverName)} asked to retry in ${seconds} s (${failure.detail}); not waiting that long.`;
  } else if (failure.retryable) {
    const what = failure.kind === 'connection' ? 'Could not reach' : 'Still no answer from';
    message = `${what} ${serverName} after ${attempt} attempts (${failure.detail}).`;
  }
  return {
    kind: failure.kind,
    message: redact(message),
    ...(failure.status !== undefined ? { status: failure.status } : {}),
  };
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function aborted(): ProviderError {
  return { kind: 'aborted', message: 'The request was cancelled.' };
}

/** A server may echo a key back in an error body: scrub it from anything a provider emits. */
export function redactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const kept = secrets.filter((secret): secret is string => Boolean(secret && secret.length >= 4));
  return (text) => kept.reduce((out, secret) => out.replaceAll(secret, '[redacted]'), text);
}
