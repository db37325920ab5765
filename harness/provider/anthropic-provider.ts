import type Anthropic from '@anthropic-ai/sdk';
import type { ClientOptions } from '@anthropic-ai/sdk/client';
import { classifyFailure } from './classify-failure.js';
import { createMessageAccumulator } from './message-accumulator.js';
import { MessagesClient } from './messages-client.js';
import { contextWindow } from './model-catalog.js';
import type { ModelProvider, ModelRequest, ProviderError } from './model-provider.js';
import { createNodeHttpFetch } from './node-http-fetch.js';
import type { Backoff } from './retry-delay.js';
import { redactor, streamWithRetries } from './stream-with-retries.js';
import { toAnthropicParams } from './to-anthropic-params.js';

/** What the provider needs of a client: the Messages API (`Anthropic`, `AnthropicBedrock`, `AnthropicVertex`). */
export interface MessagesApiClient {
  readonly baseURL: string;
  messages: {
    create(
      params: Anthropic.MessageCreateParamsStreaming,
      options: { signal: AbortSignal; maxRetries: number },
    ): PromiseLike<AsyncIterable<Anthropic.RawMessageStreamEvent>>;
  };
}

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
  /** Headers sent with every request (a settings provider's `headers`). */
  defaultHeaders?: Record<string, string>;
  /** Debug lines (attempts, retries, failures, SDK warnings); never carries the key. */
  onDebug?: (line: string) => void;
  /**
   * Another client of the same API (Claude on Bedrock or Vertex), made with `fetch`; the provider's
   * name, the server's name for messages, and the context windows of its models go with it.
   */
  client?: {
    make(fetch: ClientOptions['fetch'], logger: ClientOptions['logger']): MessagesApiClient;
    name: string;
    serverName: string;
    contextWindow?(model: string): number;
    /** Credentials the client holds, scrubbed from messages like the key. */
    secrets?: readonly string[];
  };
}

const DEFAULT_BACKOFF: Backoff = { baseMs: 500, capMs: 30_000 };

/**
 * The Messages API as a ModelProvider, on the official SDK. The SDK's own
 * retries are off: `streamWithRetries` retries, so that each retry reaches the
 * engine as a `retry` event, and so that a stream that fails half-way is
 * retried too (the SDK only retries until the response headers arrive).
 * Bedrock's and Vertex's clients are the same SDK with another transport.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const other = options.client;
  const redact = redactor([options.apiKey, ...(other?.secrets ?? [])]);
  const debug = (line: string): void => options.onDebug?.(redact(line));
  const sdkLog = (message: string): void => debug(`anthropic sdk: ${message}`);
  // A custom fetch is the caller's own, not ours to warm.
  const transport = options.fetch ? undefined : createNodeHttpFetch();
  const fetch = options.fetch ?? transport?.fetch;
  // The SDK logs to the console by default, which would tear a TUI.
  const logger = { error: sdkLog, warn: sdkLog, info: () => {}, debug: () => {} };
  const client: MessagesApiClient = other
    ? other.make(fetch, logger)
    : new MessagesClient({
        apiKey: options.apiKey,
        baseURL: options.baseURL,
        maxRetries: 0,
        fetch,
        logger,
        logLevel: 'warn',
        ...(options.defaultHeaders && { defaultHeaders: options.defaultHeaders }),
      });
  const serverName = other?.serverName ?? 'the Anthropic API';
  const attempts = (options.maxRetries ?? 5) + 1;
  const backoff: Backoff = { ...DEFAULT_BACKOFF, ...options.backoff };

  return {
    name: other?.name ?? 'anthropic',
    async *stream(request, signal) {
      const refusal = checkRequest(request, other ? 'signed' : options.apiKey);
      if (refusal) {
        yield { type: 'error', error: refusal };
        return;
      }
      const params = toAnthropicParams(request);
      yield* streamWithRetries(
        {
          serverName,
          open: async (signal) => await client.messages.create(params, { signal, maxRetries: 0 }),
          accumulator: () => createMessageAccumulator(debug),
          classify: classifyFailure,
          attempts,
          backoff,
          debug,
          redact,
        },
        signal,
      );
    },
    contextWindow: other?.contextWindow ?? contextWindow,
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
