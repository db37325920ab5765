import { APIError } from 'openai/core/error';
import type { ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
import type { ContentBlock, StopReason } from '../../shared/conversation.js';
import type { TokenUsage } from '../../shared/engine-events.js';
import { type CompletedMessage, partialContent, toolUseBlock } from './message-accumulator.js';
import type { ProviderEvent } from './model-provider.js';
import type { StreamAccumulator } from './stream-with-retries.js';

type OpenBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_use'; id: string; name: string; json: string; done?: string };

/**
 * Folds Responses API stream events into ProviderEvents and one `Message`: each output item (by
 * `output_index`) is one block: a message's text, a reasoning item's summary or text as
 * thinking, a function call as `tool_use` (its `call_id` is the id results answer). Item kinds
 * Skate does not ask for are skipped. `response.completed` or `.incomplete` ends the message;
 * `response.failed` and `error` events become the SDK's APIError, for the retry policy.
 */
export function createResponsesAccumulator(): StreamAccumulator<ResponseStreamEvent> {
  const blocks: OpenBlock[] = [];
  const finished: (ContentBlock | undefined)[] = [];
  const byOutput = new Map<number, number>();
  let end: { stopReason: StopReason; usage: TokenUsage } | undefined;
  let producedContent = false;

  const content = (...events: ProviderEvent[]): ProviderEvent[] => {
    producedContent = true;
    return events;
  };
  const blockAt = (outputIndex: number, make: () => OpenBlock): [number, OpenBlock] => {
    let index = byOutput.get(outputIndex);
    if (index === undefined) {
      index = blocks.push(make()) - 1;
      byOutput.set(outputIndex, index);
    }
    return [index, blocks[index]!];
  };
  const appendText = (outputIndex: number, type: 'text' | 'thinking', text: string): ProviderEvent[] => {
    const [index, block] = blockAt(outputIndex, () => ({ type, text: '' }));
    if (block.type !== type || !text) return [];
    block.text += text;
    return content({ type: type === 'text' ? 'text_delta' : 'thinking_delta', index, text });
  };

  return {
    push(event) {
      switch (event.type) {
        case 'response.output_item.added': {
          const item = event.item;
          if (item.type === 'function_call') {
            const [index] = blockAt(event.output_index, () => ({
              type: 'tool_use',
              id: item.call_id,
              name: item.name,
              json: item.arguments ?? '',
            }));
            return content({ type: 'tool_use_start', index, id: item.call_id, name: item.name });
          }
          if (item.type === 'message') blockAt(event.output_index, () => ({ type: 'text', text: '' }));
          if (item.type === 'reasoning') blockAt(event.output_index, () => ({ type: 'thinking', text: '' }));
          return [];
        }
        case 'response.output_text.delta':
          return appendText(event.output_index, 'text', event.delta);
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta':
          return appendText(event.output_index, 'thinking', event.delta);
        case 'response.function_call_arguments.delta': {
          const index = byOutput.get(event.output_index);
          const block = index === undefined ? undefined : blocks[index];
          if (index === undefined || block?.type !== 'tool_use' || !event.delta) return [];
          block.json += event.delta;
          return content({ type: 'tool_input_delta', index, json: event.delta });
        }
        case 'response.function_call_arguments.done': {
          const index = byOutput.get(event.output_index);
          const block = index === undefined ? undefined : blocks[index];
          if (block?.type === 'tool_use') block.done = event.arguments;
          return [];
        }
        case 'response.output_item.done': {
          const index = byOutput.get(event.output_index);
          if (index === undefined || finished[index]) return [];
          const block = blocks[index]!;
          if (block.type === 'tool_use' && event.item.type === 'function_call')
            block.done = event.item.arguments;
          const done = toBlock(block);
          finished[index] = done;
          return [{ type: 'block_done', index, block: done }];
        }
        case 'response.completed':
        case 'response.incomplete': {
          const response = event.response;
          const calls = blocks.some((block) => block.type === 'tool_use');
          const cut = response.incomplete_details?.reason === 'max_output_tokens';
          end = {
            stopReason: calls
              ? 'tool_use'
              : cut
                ? 'max_tokens'
                : response.incomplete_details
                  ? 'refusal'
                  : 'end_turn',
            usage: toUsage(response.usage),
          };
          return [];
        }
        case 'response.failed': {
          const error = event.response.error;
          throw new APIError(
            undefined,
            error ?? undefined,
            error?.message ?? 'the response failed',
            undefined,
          );
        }
        case 'error':
          throw new APIError(
            undefined,
            { code: event.code, message: event.message },
            event.message,
            undefined,
          );
        default:
          return [];
      }
    },
    get producedContent() {
      return producedContent;
    },
    finish(): CompletedMessage | undefined {
      if (!end) return undefined;
      const message = {
        role: 'assistant' as const,
        content: blocks
          .map((block, index) => finished[index] ?? toBlock(block))
          .filter((block) => !(block.type === 'thinking' && block.thinking === '')),
      };
      return { message, ...end };
    },
    partial() {
      return partialContent(blocks, finished);
    },
  };
}

function toBlock(block: OpenBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'thinking', thinking: block.text, signature: '' };
    case 'tool_use':
      // The done event carries the whole arguments; the deltas are the fallback.
      return toolUseBlock(block.id, block.name, block.done ?? block.json);
  }
}

/** `input_tokens` counts the cached ones too; Skate's `inputTokens` are the uncached rest. */
function toUsage(usage: ResponseUsage | undefined): TokenUsage {
  const cached = usage?.input_tokens_details?.cached_tokens ?? 0;
  return {
    inputTokens: Math.max(0, (usage?.input_tokens ?? 0) - cached),
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}
