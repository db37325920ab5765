import { setTimeout as sleep } from 'node:timers/promises';
import type { ModelProvider, ProviderEvent } from '../../harness/provider/model-provider.js';

/**
 * Wraps a provider so every turn starts `delayMs` late, like a model thinking
 * before it answers: concurrent agents then really overlap. An abort during
 * the wait ends the turn as the real provider would.
 */
export function delayTurns(provider: ModelProvider, delayMs: number): ModelProvider {
  return {
    name: `${provider.name}+delay`,
    contextWindow: (model) => provider.contextWindow(model),
    async *stream(request, signal): AsyncGenerator<ProviderEvent> {
      try {
        await sleep(delayMs, undefined, { signal });
      } catch {
        yield { type: 'error', error: { kind: 'aborted', message: 'The request was cancelled.' } };
        return;
      }
      yield* provider.stream(request, signal);
    },
  };
}
