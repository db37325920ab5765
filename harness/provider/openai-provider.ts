import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { createChatAccumulator } from './chat-accumulator.js';
import { classifyOpenAiFailure } from './classify-openai-failure.js';
import type { ModelProvider } from './model-provider.js';
import { createNodeHttpFetch } from './node-http-fetch.js';
import { OpenAiClient } from './openai-client.js';
import { createResponsesAccumulator } from './responses-accumulator.js';
import type { Backoff } from './retry-delay.js';
import { redactor, streamWithRetries } from './stream-with-retries.js';
import { toChatParams } from './to-chat-params.js';
import { toResponsesParams } from './to-responses-params.js';

export interface OpenAiProviderOptions {
  /** Which of OpenAI's two formats the server speaks. */
  api: 'chat' | 'responses';
  /** The provider's name in settings (`ollama` in `ollama/llama3.1`). */
  name: string;
  /** The server's `/v1` URL. */
  baseURL: string;
  /** The key, when the server wants one; local servers mostly do not. */
  apiKey?: string | undefined;
  /** Where the key came from, for an authentication error's advice. */
  apiKeyEnv?: string | undefined;
  defaultHeaders?: Record<string, string> | undefined;
  /** The context window of a model, from the catalog. */
  contextWindow(model: string): number;
  maxRetries?: number;
  backoff?: Partial<Backoff>;
  onDebug?: (line: string) => void;
}

const DEFAULT_BACKOFF: Backoff = { baseMs: 500, capMs: 30_000 };

/**
 * OpenAI's Chat Completions or Responses API as a ModelProvider, on the official `openai` SDK,
 * for OpenAI itself and the servers that speak the same (OpenRouter, LiteLLM, vLLM, llama.cpp,
 * Ollama, LM Studio). The SDK reads no environment here: the key, base URL, organization and
 * project are what the settings say, so an `OPENAI_BASE_URL` left in a shell cannot redirect a key.
 */
export function createOpenAiProvider(options: OpenAiProviderOptions): ModelProvider {
  const redact = redactor([options.apiKey]);
  const debug = (line: string): void => options.onDebug?.(redact(line));
  const sdkLog = (message: string): void => debug(`openai sdk: ${message}`);
  const transport = createNodeHttpFetch();
  const client = new OpenAiClient({
    // The SDK refuses to start without a key; a keyless local server ignores this one.
    apiKey: options.apiKey || 'no-key',
    baseURL: options.baseURL,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    fetch: transport.fetch,
    logger: { error: sdkLog, warn: sdkLog, info: () => {}, debug: () => {} },
    logLevel: 'warn',
    ...(options.defaultHeaders && { defaultHeaders: options.defaultHeaders }),
  });
  const host = safeHost(options.baseURL);
  const serverName = `the ${options.api === 'chat' ? 'Chat Completions' : 'Responses'} API at ${host}`;
  const keyHint = options.apiKeyEnv
    ? `Check ${options.apiKeyEnv} (providers.${options.name}.apiKeyEnv).`
    : `providers.${options.name} names no apiKeyEnv: set one if the server wants a key.`;
  const attempts = (options.maxRetries ?? 5) + 1;
  const backoff: Backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  const common = {
    serverName,
    classify: (error: unknown) => classifyOpenAiFailure(error, keyHint),
    attempts,
    backoff,
    debug,
    redact,
  };
  const maxTokensField = isOpenAi(options.baseURL) ? 'max_completion_tokens' : 'max_tokens';

  return {
    name: options.name,
    stream(request, signal) {
      if (options.api === 'chat') {
        const params = toChatParams(request, { maxTokensField });
        return streamWithRetries<ChatCompletionChunk>(
          {
            ...common,
            open: async (signal) => await client.chat.completions.create(params, { signal, maxRetries: 0 }),
            accumulator: createChatAccumulator,
          },
          signal,
        );
      }
      const params = toResponsesParams(request);
      return streamWithRetries<ResponseStreamEvent>(
        {
          ...common,
          open: async (signal) => await client.responses.create(params, { signal, maxRetries: 0 }),
          accumulator: createResponsesAccumulator,
        },
        signal,
      );
    },
    contextWindow: options.contextWindow,
    warm: () => transport.warm(client.baseURL),
  };
}

function isOpenAi(baseURL: string): boolean {
  return safeHost(baseURL) === 'api.openai.com';
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
