import type {
  ModelProvider,
  ModelRequest,
  ProviderErrorKind,
  ProviderEvent,
} from '../../harness/provider/model-provider.js';
import type { ContentBlock, StopReason } from '../../shared/conversation.js';
import type { TokenUsage } from '../../shared/engine-events.js';

/** One thing a scripted turn does, in order. */
export type ScriptedStep =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string; signature?: string }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  /** A `retry` event; with `discard` (the default once content went out) the turn starts over. */
  | { type: 'retry'; reason?: string; discard?: boolean; delayMs?: number }
  /** Waits here until the signal aborts, then ends the turn with an `aborted` error. */
  | { type: 'pause' }
  /** Ends the turn with this error. */
  | { type: 'error'; kind: ProviderErrorKind; message?: string; status?: number };

export interface ScriptedTurn {
  steps: ScriptedStep[];
  /** Defaults to `tool_use` when the turn called a tool, else `end_turn`. */
  stopReason?: StopReason;
  usage?: Partial<TokenUsage>;
}

export interface ScriptedProvider extends ModelProvider {
  /** Every request received, copied when it arrived. */
  readonly requests: readonly ModelRequest[];
  /** Turns not played yet. */
  readonly remaining: number;
}

/**
 * A ModelProvider for engine unit tests: each `stream` call plays the next
 * scripted turn as ProviderEvents and ends, like the real one, with exactly one
 * `message_done` or `error`. It checks the abort signal before every event.
 */
export function createScriptedProvider(
  turns: ScriptedTurn[],
  options: { contextWindow?: number } = {},
): ScriptedProvider {
  const queue = [...turns];
  const requests: ModelRequest[] = [];

  async function* stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    requests.push(structuredClone(request));
    const turn = queue.shift();
    if (!turn) {
      const message = `scripted provider: no turn left for request #${requests.length}`;
      yield { type: 'error', error: { kind: 'bad_request', message } };
      return;
    }
    let blocks: ContentBlock[] = [];
    let retries = 0;
    for (const step of turn.steps) {
      if (signal.aborted) {
        yield aborted(blocks);
        return;
      }
      switch (step.type) {
        case 'text': {
          const block: ContentBlock = { type: 'text', text: step.text };
          yield { type: 'text_delta', index: blocks.length, text: step.text };
          yield { type: 'block_done', index: blocks.length, block };
          blocks.push(block);
          break;
        }
        case 'thinking': {
          const block: ContentBlock = {
            type: 'thinking',
            thinking: step.text,
            signature: step.signature ?? 'scripted-signature',
          };
          yield { type: 'thinking_delta', index: blocks.length, text: step.text };
          yield { type: 'block_done', index: blocks.length, block };
          blocks.push(block);
          break;
        }
        case 'tool_call': {
          const block: ContentBlock = { type: 'tool_use', id: step.id, name: step.name, input: step.input };
          yield { type: 'tool_use_start', index: blocks.length, id: step.id, name: step.name };
          yield { type: 'tool_input_delta', index: blocks.length, json: JSON.stringify(step.input) };
          yield { type: 'block_done', index: blocks.length, block };
          blocks.push(block);
          break;
        }
        case 'retry': {
          const discard = step.discard ?? blocks.length > 0;
          retries++;
          yield {
            type: 'retry',
            attempt: retries + 1,
            delayMs: step.delayMs ?? 0,
            reason: step.reason ?? 'scripted retry',
            discard,
          };
          if (discard) blocks = [];
          break;
        }
        case 'pause':
          await abortedPromise(signal);
          yield aborted(blocks);
          return;
        case 'error': {
          const message = step.message ?? `scripted ${step.kind} error`;
          const status = step.status !== undefined ? { status: step.status } : {};
          yield { type: 'error', error: { kind: step.kind, message, ...status } };
          return;
        }
      }
    }
    if (signal.aborted) {
      yield aborted(blocks);
      return;
    }
    const calledTool = blocks.some((block) => block.type === 'tool_use');
    yield {
      type: 'message_done',
      message: { role: 'assistant', content: blocks },
      stopReason: turn.stopReason ?? (calledTool ? 'tool_use' : 'end_turn'),
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, ...turn.usage },
    };
  }

  return {
    name: 'scripted',
    stream,
    contextWindow: () => options.contextWindow ?? 200_000,
    requests,
    get remaining() {
      return queue.length;
    },
  };
}

function aborted(partial: ContentBlock[]): ProviderEvent {
  return { type: 'error', error: { kind: 'aborted', message: 'The request was cancelled.' }, partial };
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
