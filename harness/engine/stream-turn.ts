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

/** A content block while it streams, by its index in the assistant message. */
type OpenBlock =
  | { kind: 'text'; text: string; closed: boolean }
  | { kind: 'thinking'; text: string; closed: boolean }
  | { kind: 'tool'; id: string; name: string; json: string; closed: boolean };

export interface StreamTurnOptions {
  provider: ModelProvider;
  request: ModelRequest;
  signal: AbortSignal;
  emitter: Emitter;
  agent: AgentPath;
}

/**
 * Plays one provider stream and turns it into engine events: deltas as they
 * come, `*_done` and `tool_call_start` (with parsed args) when a block closes.
 * A `retry` that discards drops the partial turn and says so with a `warn`;
 * tool calls it had already announced get a result saying they never ran, so
 * a frontend tracking calls is not left with one open forever.
 */
export async function streamTurn(options: StreamTurnOptions): Promise<TurnResult> {
  const { provider, request, signal, emitter, agent } = options;
  const started = performance.now();
  let blocks: (OpenBlock | undefined)[] = [];
  /** Ids that got their tool_call_start, so message_done does not announce them twice. */
  const announced = new Set<string>();

  const close = (block: OpenBlock): void => {
    if (block.closed) return;
    block.closed = true;
    if (block.kind === 'text') emitter.emit({ type: 'text_done', agent, text: block.text });
    else if (block.kind === 'thinking') emitter.emit({ type: 'thinking_done', agent, text: block.text });
    else {
      announced.add(block.id);
      const args = parseArgs(block.json);
      emitter.emit({ type: 'tool_call_start', agent, id: block.id, name: block.name, args });
    }
  };

  try {
    for await (const event of provider.stream(request, signal)) {
      switch (event.type) {
        case 'text_delta': {
          // The hot path: one lookup, one append, one event.
          const block = blocks[event.index];
          if (block?.kind === 'text') block.text += event.text;
          else blocks[event.index] = { kind: 'text', text: event.text, closed: false };
          emitter.emit({ type: 'text_delta', agent, text: event.text });
          break;
        }
        case 'thinking_delta': {
          const block = blocks[event.index];
          if (block?.kind === 'thinking') block.text += event.text;
          else {
            blocks[event.index] = { kind: 'thinking', text: event.text, closed: false };
            emitter.emit({ type: 'thinking_start', agent });
          }
          emitter.emit({ type: 'thinking_delta', agent, text: event.text });
          break;
        }
        case 'tool_use_start':
          blocks[event.index] = { kind: 'tool', id: event.id, name: event.name, json: '', closed: false };
          break;
        case 'tool_input_delta': {
          const block = blocks[event.index];
          if (block?.kind === 'tool') block.json += event.json;
          break;
        }
        case 'block_stop': {
          const block = blocks[event.index];
          if (block) close(block);
          break;
        }
        case 'retry':
          if (event.discard) {
            for (const block of blocks) {
              if (block?.kind !== 'tool' || !announced.delete(block.id)) continue;
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
            blocks = [];
          }
          emitter.emit({ type: 'warn', agent, message: retryMessage(event) });
          break;
        case 'message_done':
          for (const block of blocks) if (block) close(block);
          announceUnseen(event.message, announced, emitter, agent);
          return {
            status: 'done',
            message: event.message,
            stopReason: event.stopReason,
            usage: event.usage,
            elapsedMs: performance.now() - started,
          };
        case 'error':
          if (event.error.kind === 'aborted' || signal.aborted) return cancelled(blocks);
          return { status: 'error', error: event.error };
      }
    }
  } catch (error) {
    // The contract says a stream never throws; a provider that does still must not take the run down.
    if (signal.aborted) return cancelled(blocks);
    const message = error instanceof Error ? error.message : String(error);
    return {
      status: 'error',
      error: { kind: 'unavailable', message: `The model provider failed: ${message}` },
    };
  }
  if (signal.aborted) return cancelled(blocks);
  return {
    status: 'error',
    error: { kind: 'connection', message: 'The model stream ended without a final message.' },
  };
}

/** The streamed text kept on an interrupt; thinking (unsigned) and unrun tool calls are dropped. */
function cancelled(blocks: readonly (OpenBlock | undefined)[]): TurnResult {
  const partial: ContentBlock[] = [];
  for (const block of blocks) {
    if (block?.kind === 'text' && block.text.trim() !== '') partial.push({ type: 'text', text: block.text });
  }
  return { status: 'cancelled', partial };
}

/** A provider that skipped a block_stop still gets every tool call announced before it runs. */
function announceUnseen(message: Message, announced: Set<string>, emitter: Emitter, agent: AgentPath): void {
  for (const block of message.content) {
    if (block.type === 'tool_use' && !announced.has(block.id)) {
      emitter.emit({ type: 'tool_call_start', agent, id: block.id, name: block.name, args: block.input });
    }
  }
}

/** The tool input as the model wrote it; the executor reports bad input to the model, so `{}` will do here. */
function parseArgs(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return {};
  }
}

function retryMessage(event: { attempt: number; delayMs: number; reason: string; discard: boolean }): string {
  const seconds = (event.delayMs / 1000).toFixed(1);
  const discarded = event.discard ? '; the partial reply was discarded' : '';
  return `Model request failed (${event.reason}); retrying in ${seconds} s, attempt ${event.attempt}${discarded}.`;
}
