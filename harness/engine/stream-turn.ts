import type { ContentBlock, Message, StopReason } from '../../shared/conversation.js';
import type { AgentPath, TokenUsage } from '../../shared/engine-events.js';
import type { ModelProvider, ModelRequest, ProviderError } from '../provider/model-provider.js';
import type { Emitter } from './engine-types.js';

/** How one streamed model turn ended. */
export type TurnResult =
  | { status: 'done'; message: Message; stopReason: StopReason; usage: TokenUsage; elapsedMs: number }
  /** Interrupted: `partial` holds the text that had streamed, so a resume can see it. */
  | { status: 'cancelled'; partial: ContentBlock[] }
  | { status: 'error'; error: ProviderError };

export interface StreamTurnOptions {
  provider: ModelProvider;
  request: ModelRequest;
  signal: AbortSignal;
  emitter: Emitter;
  agent: AgentPath;
}

/**
 * Plays one provider stream and turns it into engine events: deltas as they
 * come, `*_done` and `tool_call_start` when the provider hands over a finished
 * block. Nothing is accumulated here: the provider built each block (and parsed
 * each tool call's input) once. A `retry` that discards drops the partial turn
 * and says so with a `warn`; tool calls it had already announced get a result
 * saying they never ran, so a frontend tracking calls is not left with one open forever.
 */
export async function streamTurn(options: StreamTurnOptions): Promise<TurnResult> {
  const { provider, request, signal, emitter, agent } = options;
  const started = performance.now();
  /** Finished blocks by index, as the provider handed them over. */
  let finished: (ContentBlock | undefined)[] = [];
  /** Indexes whose thinking_start went out. */
  const thinking = new Set<number>();

  const finish = (index: number, block: ContentBlock): void => {
    finished[index] = block;
    if (block.type === 'text') emitter.emit({ type: 'text_done', agent, text: block.text });
    else if (block.type === 'thinking') emitter.emit({ type: 'thinking_done', agent, text: block.thinking });
    else if (block.type === 'tool_use')
      emitter.emit({ type: 'tool_call_start', agent, id: block.id, name: block.name, args: block.input });
  };

  try {
    for await (const event of provider.stream(request, signal)) {
      switch (event.type) {
        case 'text_delta':
          emitter.emit({ type: 'text_delta', agent, text: event.text });
          break;
        case 'thinking_delta':
          if (!thinking.has(event.index)) {
            thinking.add(event.index);
            emitter.emit({ type: 'thinking_start', agent });
          }
          emitter.emit({ type: 'thinking_delta', agent, text: event.text });
          break;
        case 'tool_use_start':
        case 'tool_input_delta':
          // The call is announced once its block is finished, with its input parsed.
          break;
        case 'block_done':
          if (!finished[event.index]) finish(event.index, event.block);
          break;
        case 'retry':
          if (event.discard) {
            for (const block of finished) {
              if (block?.type !== 'tool_use') continue;
              emitter.emit({
                type: 'tool_call_result',
                agent,
                id: block.id,
                name: block.name,
                output: 'not run: the reply that made this call was cut off and is being retried',
                isError: true,
                code: 'cancelled',
                durationMs: 0,
              });
            }
            finished = [];
            thinking.clear();
          }
          emitter.emit({ type: 'warn', agent, message: retryMessage(event) });
          break;
        case 'message_done':
          // A provider that skipped a block_done still gets every block ended and every call announced.
          event.message.content.forEach((block, index) => {
            if (!finished[index]) finish(index, block);
          });
          return {
            status: 'done',
            message: event.message,
            stopReason: event.stopReason,
            usage: event.usage,
            elapsedMs: performance.now() - started,
          };
        case 'error':
          if (event.error.kind === 'aborted' || signal.aborted) return cancelled(event.partial ?? finished);
          return { status: 'error', error: event.error };
      }
    }
  } catch (error) {
    // The contract says a stream never throws; a provider that does still must not take the run down.
    if (signal.aborted) return cancelled(finished);
    const message = error instanceof Error ? error.message : String(error);
    return {
      status: 'error',
      error: { kind: 'unavailable', message: `The model provider failed: ${message}` },
    };
  }
  if (signal.aborted) return cancelled(finished);
  return {
    status: 'error',
    error: { kind: 'connection', message: 'The model stream ended without a final message.' },
  };
}

/** The streamed text kept on an interrupt; thinking (unsigned) and unrun tool calls are dropped. */
function cancelled(blocks: readonly (ContentBlock | undefined)[]): TurnResult {
  const partial: ContentBlock[] = [];
  for (const block of blocks) {
    if (block?.type === 'text' && block.text.trim() !== '') partial.push({ type: 'text', text: block.text });
  }
  return { status: 'cancelled', partial };
}

function retryMessage(event: { attempt: number; delayMs: number; reason: string; discard: boolean }): string {
  const seconds = (event.delayMs / 1000).toFixed(1);
  const discarded = event.discard ? '; the partial reply was discarded' : '';
  return `Model request failed (${event.reason}); retrying in ${seconds} s, attempt ${event.attempt}${discarded}.`;
}
