import type Anthropic from '@anthropic-ai/sdk';
import { type ContentBlock, type Message, StopReason } from '../../shared/conversation.js';
import type { TokenUsage } from '../../shared/engine-events.js';
import type { ProviderEvent } from './model-provider.js';

/**
 * A tool_use block whose streamed input was not valid JSON (a reply cut off by
 * max_tokens, say): `input` is `{}`, so the block can still go back to the API,
 * and `rawInput` keeps the text the model wrote, for the error shown to it.
 */
export type ToolUseWithRawInput = Extract<ContentBlock, { type: 'tool_use' }> & {
  rawInput?: string;
  /** What the JSON parser said about `rawInput`. */
  inputError?: string;
};

/**
 * A tool call's streamed arguments as a block: parsed when they are a JSON object, else `{}` with
 * the text and the parser's complaint kept for the repair turn (`harness/engine/run-tool-calls.ts`).
 */
export function toolUseBlock(
  id: string,
  name: string,
  json: string,
  emptyInput: unknown = {},
): ToolUseWithRawInput {
  if (json.trim() === '') return { type: 'tool_use', id, name, input: emptyInput ?? {} };
  let problem: string;
  try {
    const input = JSON.parse(json) as unknown;
    if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
      return { type: 'tool_use', id, name, input };
    }
    problem = `the arguments are JSON but not an object (${Array.isArray(input) ? 'an array' : typeof input})`;
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  return { type: 'tool_use', id, name, input: {}, rawInput: json, inputError: problem };
}

/**
 * What streamed so far, for every provider's accumulator: finished blocks, and open text blocks as
 * far as they went (open tool calls and thinking are left out).
 */
export function partialContent(
  blocks: readonly { type: string; text?: string }[],
  finished: readonly (ContentBlock | undefined)[],
): ContentBlock[] {
  return blocks.flatMap((block, index): ContentBlock[] => {
    const done = finished[index];
    if (done) return [done];
    return block.type === 'text' && block.text ? [{ type: 'text', text: block.text }] : [];
  });
}

export interface CompletedMessage {
  message: Message;
  stopReason: StopReason;
  usage: TokenUsage;
}

export interface MessageAccumulator {
  /** Takes one raw stream event; returns what it means for the engine. */
  push(event: Anthropic.RawMessageStreamEvent): ProviderEvent[];
  /** True once a content event went out: a retry from here must discard it. */
  readonly producedContent: boolean;
  /** The message, once `message_stop` arrived; undefined for a stream cut short. */
  finish(): CompletedMessage | undefined;
  /** What streamed so far: finished blocks, and open text blocks as far as they went. */
  partial(): ContentBlock[];
}

type OpenBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; json: string; startInput: unknown };

/**
 * Folds the raw events of one streamed attempt into ProviderEvents and the
 * final `Message`. Each block is built once: finished (a tool call's input
 * parsed) when it stops, handed out in `block_done`, and reused by the final
 * message. Block kinds Skate does not send for (server tools) are skipped, so
 * event indexes are positions in Skate's message, not the API's.
 */
export function createMessageAccumulator(onDebug: (line: string) => void = () => {}): MessageAccumulator {
  const blocks: OpenBlock[] = [];
  /** Finished blocks by index, built once when their block stops. */
  const finished: (ContentBlock | undefined)[] = [];
  const indexOf = new Map<number, number>();
  let stopReason: Anthropic.StopReason | null = null;
  let startUsage: Anthropic.Usage | undefined;
  let deltaUsage: Anthropic.MessageDeltaUsage | undefined;
  let stopped = false;
  let producedContent = false;

  const push = (event: Anthropic.RawMessageStreamEvent): ProviderEvent[] => {
    switch (event.type) {
      case 'message_start':
        startUsage = event.message.usage;
        return [];
      case 'content_block_start':
        return start(event);
      case 'content_block_delta':
        return delta(event);
      case 'content_block_stop': {
        const index = indexOf.get(event.index);
        if (index === undefined || finished[index]) return [];
        const block = toContentBlock(blocks[index]!, onDebug);
        finished[index] = block;
        return [{ type: 'block_done', index, block }];
      }
      case 'message_delta':
        stopReason = event.delta.stop_reason ?? stopReason;
        deltaUsage = event.usage;
        return [];
      case 'message_stop':
        stopped = true;
        return [];
      default:
        return [];
    }
  };

  const start = (event: Anthropic.RawContentBlockStartEvent): ProviderEvent[] => {
    const block = event.content_block;
    const index = blocks.length;
    switch (block.type) {
      case 'text':
        blocks.push({ type: 'text', text: block.text });
        indexOf.set(event.index, index);
        return block.text ? content({ type: 'text_delta', index, text: block.text }) : [];
      case 'thinking':
        blocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        indexOf.set(event.index, index);
        return block.thinking ? content({ type: 'thinking_delta', index, text: block.thinking }) : [];
      case 'redacted_thinking':
        blocks.push({ type: 'redacted_thinking', data: block.data });
        indexOf.set(event.index, index);
        return content();
      case 'tool_use':
        blocks.push({ type: 'tool_use', id: block.id, name: block.name, json: '', startInput: block.input });
        indexOf.set(event.index, index);
        return content({ type: 'tool_use_start', index, id: block.id, name: block.name });
      default:
        onDebug(`anthropic: skipped a ${block.type} block, which Skate does not handle`);
        return [];
    }
  };

  const delta = (event: Anthropic.RawContentBlockDeltaEvent): ProviderEvent[] => {
    const index = indexOf.get(event.index);
    const block = index === undefined ? undefined : blocks[index];
    if (index === undefined || !block) return [];
    const d = event.delta;
    if (d.type === 'text_delta' && block.type === 'text') {
      block.text += d.text;
      return content({ type: 'text_delta', index, text: d.text });
    }
    if (d.type === 'thinking_delta' && block.type === 'thinking') {
      block.thinking += d.thinking;
      return content({ type: 'thinking_delta', index, text: d.thinking });
    }
    if (d.type === 'signature_delta' && block.type === 'thinking') {
      block.signature += d.signature;
      return [];
    }
    if (d.type === 'input_json_delta' && block.type === 'tool_use') {
      block.json += d.partial_json;
      return d.partial_json ? content({ type: 'tool_input_delta', index, json: d.partial_json }) : [];
    }
    // citations_delta, or a delta that does not fit its block: nothing to show.
    return [];
  };

  const content = (...events: ProviderEvent[]): ProviderEvent[] => {
    producedContent = true;
    return events;
  };

  return {
    push,
    get producedContent() {
      return producedContent;
    },
    finish() {
      if (!stopped) return undefined;
      return {
        message: {
          role: 'assistant',
          // A block the stream never stopped is finished here, so none is built twice.
          content: blocks.map((block, index) => finished[index] ?? toContentBlock(block, onDebug)),
        },
        stopReason: toStopReason(stopReason, onDebug),
        usage: combineUsage(startUsage, deltaUsage),
      };
    },
    partial() {
      return partialContent(blocks, finished);
    },
  };
}

function toContentBlock(block: OpenBlock, onDebug: (line: string) => void): ContentBlock {
  if (block.type !== 'tool_use') return block;
  const { id, name, json, startInput } = block;
  // No deltas: the start event carried the whole input (or none, meaning `{}`).
  const built = toolUseBlock(id, name, json, startInput);
  if (built.inputError) {
    onDebug(`anthropic: the input of tool call ${id} (${name}) is not valid JSON (${json.length} chars)`);
  }
  return built;
}

function toStopReason(reason: Anthropic.StopReason | null, onDebug: (line: string) => void): StopReason {
  // Cut short by the context window rather than by max_tokens: to the engine
  // both mean "the output is truncated".
  if (reason === 'model_context_window_exceeded') return 'max_tokens';
  // Checked at run time: the API can add reasons before the SDK types do.
  const parsed = StopReason.safeParse(reason);
  if (parsed.success) return parsed.data;
  if (reason !== null) onDebug(`anthropic: unknown stop_reason ${JSON.stringify(reason)}, taken as end_turn`);
  return 'end_turn';
}

/**
 * message_start carries the input and cache counts; message_delta carries the
 * cumulative counts, where a null means "unchanged since message_start".
 */
function combineUsage(
  start: Anthropic.Usage | undefined,
  delta: Anthropic.MessageDeltaUsage | undefined,
): TokenUsage {
  return {
    inputTokens: delta?.input_tokens ?? start?.input_tokens ?? 0,
    outputTokens: delta?.output_tokens ?? start?.output_tokens ?? 0,
    cacheReadTokens: delta?.cache_read_input_tokens ?? start?.cache_read_input_tokens ?? 0,
    cacheWriteTokens: delta?.cache_creation_input_tokens ?? start?.cache_creation_input_tokens ?? 0,
  };
}
