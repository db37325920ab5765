import { ASSUMED_CONTEXT_WINDOW, contextWindow } from './model-catalog.js';
import type { ModelProvider, ModelRequest, ProviderEvent } from './model-provider.js';
import { askOllamaContextWindow } from './ollama-context-window.js';
import { knownProviderWindow, learnContextWindow, providerModel, providerOf } from './provider-catalog.js';

export interface ProviderRouterOptions {
  /** The Anthropic API provider, for a model without a provider prefix; undefined without a key. */
  anthropic(): Promise<ModelProvider> | undefined;
  /** The model the run starts on: its provider is the one warmed. */
  initialModel: string;
  onDebug?: (line: string) => void;
  /** The environment the keys are read from (the harness's own). */
  env?: NodeJS.ProcessEnv;
}

/**
 * One ModelProvider over all of them: a model `NAME/MODEL` goes to the settings' provider NAME
 * (asked for MODEL), anything else to the Anthropic API. Each provider is made the first time a
 * model of it is used, so `:model` can move a session between providers, and an SDK no model
 * needs is never loaded.
 */
export function createProviderRouter(options: ProviderRouterOptions): ModelProvider {
  const env = options.env ?? process.env;
  const made = new Map<string, Promise<ModelProvider>>();
  const prepared = new Map<string, Promise<string | undefined>>();

  const providerFor = (model: string): Promise<ModelProvider> => {
    const ref = providerOf(model);
    const key = ref?.provider ?? '';
    let provider = made.get(key);
    if (!provider) {
      provider = ref
        ? import('./settings-provider.js').then(({ createSettingsProvider }) =>
            createSettingsProvider(
              ref.provider,
              ref.settings,
              env,
              (model) => contextWindow(`${ref.provider}/${model}`),
              options.onDebug,
            ),
          )
        : (options.anthropic() ??
          Promise.reject(
            new Error(
              'No Anthropic API key: set ANTHROPIC_API_KEY, or choose a model NAME/MODEL of a settings provider.',
            ),
          ));
      made.set(key, provider);
    }
    return provider;
  };

  async function* stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    let provider: ModelProvider;
    try {
      provider = await providerFor(request.model);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      yield { type: 'error', error: { kind: 'authentication', message } };
      return;
    }
    const ref = providerOf(request.model);
    if (!ref) {
      yield* provider.stream(request, signal);
      return;
    }
    const maxOutput = providerModel(request.model)?.maxOutput;
    yield* provider.stream(
      {
        ...request,
        model: ref.model,
        ...(maxOutput !== undefined && request.maxTokens > maxOutput && { maxTokens: maxOutput }),
      },
      signal,
    );
  }

  return {
    name: 'router',
    stream,
    contextWindow,
    /**
     * A provider model's context window, when neither the settings nor an earlier ask gave it:
     * asked from the server if it is Ollama, else assumed, and either way said once.
     */
    prepareModel(model: string): Promise<string | undefined> {
      const ref = providerOf(model);
      if (!ref || knownProviderWindow(model) !== undefined || ref.settings.type !== 'openai-chat') {
        return Promise.resolve(undefined);
      }
      let note = prepared.get(model);
      if (!note) {
        note = askOllamaContextWindow(ref.settings.baseURL ?? '', ref.model, ref.settings.headers).then(
          (answer) => {
            const setting = `providers.${ref.provider}.models["${ref.model}"].contextWindow`;
            if (answer) {
              learnContextWindow(model, answer.tokens);
              return `Context window of ${model}: ${answer.tokens} tokens, from Ollama (${answer.source}); set ${setting} to override.`;
            }
            return `Context window of ${model} unknown (the server does not say): assuming ${ASSUMED_CONTEXT_WINDOW} tokens. Set ${setting}.`;
          },
        );
        prepared.set(model, note);
        return note;
      }
      // Said once: later runs on the same model say nothing.
      return note.then(() => undefined);
    },
    warm: async () => {
      const provider = await providerFor(options.initialModel).catch(() => undefined);
      await provider?.warm?.();
    },
  };
}
