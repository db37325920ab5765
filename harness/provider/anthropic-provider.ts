import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientOptions } from '@anthropic-ai/sdk/client';
import { traceStart } from '../start-trace.js';
import { classifyFailure, type Failure } from './classify-failure.js';
import { createMessageAccumulator } from './message-accumulator.js';
import { MessagesClient } from './messages-client.js';
import { contextWindow } from './model-catalog.js';
import type { ModelProvider, ModelRequest, ProviderError, ProviderEvent } from './model-provider.js';
import { createNodeHttpFetch } from './node-http-fetch.js';
import { type Backoff, retryDelayMs } from './retry-delay.js';
import { toAnthropicParams } from './to-anthropic-params.js';

export interface AnthropicProviderOptions {
  apiKey: string;
  /** Defaults as the SDK does: ANTHROPIC_BASE_URL, else https://api.anthropic.com. */
  baseURL?: string;
  /** Retries after the first attempt: 5 by default, so six attempts in all. */
  maxRetries?: number;
  /** Backoff between retries: 500 ms doubling up to 30 s by default. */
  backoff?: Partial<Backoff>;
  /** A fetch to use instead of ours on `node:http(s)` (a proxy, a test double). */
  fetch?: ClientOptions['fetch'];
  /** Debug lines (attempts, retries, failures, SDK warnings); never carries the key. */
  onDebug?: (line: string) => void;
}

const DEFAULT_BACKOFF: Backoff = { baseMs: 500, capMs: 30_000 };

/** Longer waits than this mean "not soon" (a spend or quota window): fail rather than hang. */
const MAX_SERVER_WAIT_MS = 60_000;

/**
 * The Messages API as a ModelProvider, on the official SDK. The SDK's own
 * retries are off: this provider retries itself so that each retry reaches the
 * engine as a `retry` event, and so that a stream that fails half-way is
 * retried too (the SDK only retries until the response headers arrive).
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const redact = redactor(options.apiKey);
  const debug = (line: string): void => options.onDebug?.(redact(line));
  const sdkLog = (message: string): void => debug(`anthropic sdk: ${message}`);
  // A custom fetch is the caller's own, not ours to warm.
  const transport = options.fetch ? undefined : createNodeHttpFetch();
  const client = new MessagesClient({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: 0,
    fetch: options.fetch ?? transport?.fetch,
    // The SDK logs to the console by default, which would tear a TUI.
    logger: { error: sdkLog, warn: sdkLog, info: () => {}, debug: () => {} },
    logLevel: 'warn',
  });
  const attempts = (options.maxRetries ?? 5) + 1;
  const backoff: Backoff = { ...DEFAULT_BACKOFF, ...options.backoff };

  async function* stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    const refusal = checkRequest(request, options.apiKey);
    if (refusal) {
      yield { type: 'error', error: refusal };
      return;
    }
    const params = toAnthropicParams(request);
    for (let attempt = 1; ; attempt++) {
      const accumulator = createMessageAccumulator(debug);
      let failure: Failure;
      try {
        debug(`anthropic: POST /v1/messages model=${request.model} attempt ${attempt}/${attempts}`);
        traceStart('provider: request built');
        const events = await client.messages.create(params, { signal, maxRetries: 0 });
        for await (const event of events) yield* accumulator.push(event);
        const done = accumulator.finish();
        if (done) {
          yield { type: 'message_done', ...done };
          return;
        }
        // The SDK ends a stream quietly when the signal aborts it; otherwise the server hung up early.
        failure = {
          kind: 'connection',
          detail: 'the stream ended before message_stop',
          retryable: true,
          reason: 'stream ended early',
        };
      } catch (error) {
        failure = classifyFailure(error);
      }
      if (signal.aborted || failure.kind === 'aborted') {
        yield { type: 'error', error: aborted(), partial: accumulator.partial() };
        return;
      }
      debug(`anthropic: attempt ${attempt} failed: ${failure.detail}`);
      const tooLong = (failure.retryAfterMs ?? 0) > MAX_SERVER_WAIT_MS;
      if (!failure.retryable || attempt >= attempts || tooLong) {
        yield {
          type: 'error',
          error: finalError(failure, attempt, tooLong, redact),
          partial: accumulator.partial(),
        };
        return;
      }
      const delayMs = retryDelayMs(attempt, backoff, failure.retryAfterMs);
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

  return {
    name: 'anthropic',
    stream,
    contextWindow,
    // Loads node:http(s) and opens the API's connection while the executor starts; sends nothing.
    ...(transport && { warm: () => transport.warm(client.baseURL) }),
  };
}

/** Requests that cannot succeed, refused before anything is sent. */
function checkRequest(request: ModelRequest, apiKey: string): ProviderError | undefined {
  if (!apiKey) {
    return { kind: 'authentication', message: 'No Anthropic API key: set ANTHROPIC_API_KEY.' };
  }
  const budget = request.thinkingBudgetTokens;
  if (budget !== undefined && request.maxTokens <= budget) {
    return {
      kind: 'bad_request',
      message: `maxTokens (${request.maxTokens}) must exceed the thinking budget (${budget}): thinking tokens count toward it.`,
    };
  }
  return undefined;
}

function finalError(failure: Failure, attempt: number, tooLong: boolean, redact: Redact): ProviderError {
  let message = failure.detail;
  if (tooLong) {
    const seconds = Math.ceil((failure.retryAfterMs ?? 0) / 1000);
    message = `The Anthropic API asked to retry in ${seconds} s (${failure.detail}); not waiting that long.`;
  } else if (failure.retryable) {
    const what = failure.kind === 'connection' ? 'Could not reach' : 'Still no answer from';
    message = `${what} the Anthropic API after ${attempt} attempts (${failure.detail}).`;
  }
  return {
    kind: failure.kind,
    message: redact(message),
    ...(failure.status !== undefined ? { status: failure.status } : {}),
  };
}

function aborted(): ProviderError {
  return { kind: 'aborted', message: 'The request was cancelled.' };
}

type Redact = (text: string) => string;

/** A server may echo the key back in an error body: scrub it from anything we emit. */
function redactor(secret: string): Redact {
  return secret ? (text) => text.replaceAll(secret, '[redacted]') : (text) => text;
}
