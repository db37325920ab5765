import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ContentBlock, StopReason } from '../../shared/conversation.js';
import type { TokenUsage } from '../../shared/engine-events.js';
import { type CompletedMessage, partialContent, toolUseBlock } from './message-accumulator.js';
import type { ProviderEvent } from './model-provider.js';
import type { StreamAccumulator } from './stream-with-retries.js';

type OpenBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_use'; id: string; name: string; json: string };

/** Reasoning as the servers that stream it put it: `reasoning_content` (DeepSeek, vLLM, llama.cpp), `reasoning` (OpenRouter, Ollama). */
interface ReasoningDelta {
  reasoning_content?: string | null;
  reasoning?: string | null;
}

/**
 * Folds Chat Completions chunks into ProviderEvents and one `Message`. Text and reasoning become
 * blocks in the order they arrive (a change of kind closes the open one); each tool call (by its
 * `index`, so parallel calls whose arguments interleave stay apart) becomes a `tool_use` block,
 * finished when the choice finishes. Usage comes in the last chunk (`include_usage`), with
 * OpenAI's cached prompt tokens counted as cache reads.
 */
export function createChatAccumulator(): StreamAccumulator<ChatCompletionChunk> {
  const blocks: OpenBlock[] = [];
  const finished: (ContentBlock | undefined)[] = [];
  const toolIndex = new Map<number, number>();
  /** The block text or reasoning is appended to, if still open. */
  let open: number | undefined;
  let finishReason: string | null = null;
  let usage: TokenUsage | undefined;
  let producedContent = false;

  const content = (...events: ProviderEvent[]): ProviderEvent[] => {
    producedContent = true;
    return events;
  };
  const close = (index: number): ProviderEvent[] => {
    if (finished[index]) return [];
    const block = toBlock(blocks[index]!);
    finished[index] = block;
    return [{ type: 'block_done', index, block }];
  };
  const appendText = (type: 'text' | 'thinking', text: string): ProviderEvent[] => {
    const events: ProviderEvent[] = [];
    let index = open;
    if (index === undefined || blocks[index]!.type !== type) {
      if (index !== undefined) events.push(...close(index));
      index = blocks.push({ type, text: '' }) - 1;
      open = index;
    }
    (blocks[index] as { text: string }).text += text;
    events.push(...content({ type: type === 'text' ? 'text_delta' : 'thinking_delta', index, text }));
    return events;
  };

  return {
    push(chunk) {
      if (chunk.usage) usage = toUsage(chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) return [];
      const events: ProviderEvent[] = [];
      const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & ReasoningDelta;
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning) events.push(...appendText('thinking', reasoning));
      if (delta.content) events.push(...appendText('text', delta.content));
      for (const call of delta.tool_calls ?? []) {
        let index = toolIndex.get(call.index);
        if (index === undefined) {
          if (open !== undefined) events.push(...close(open));
          open = undefined;
          const id = call.id || `call_${chunk.id}_${call.index}`;
          const name = call.function?.name ?? '';
          index = blocks.push({ type: 'tool_use', id, name, json: '' }) - 1;
          toolIndex.set(call.index, index);
          events.push(...content({ type: 'tool_use_start', index, id, name }));
        }
        const block = blocks[index] as Extract<OpenBlock, { type: 'tool_use' }>;
        // Some servers repeat the name in later chunks; only the first one counts.
        if (!block.name && call.function?.name) block.name = call.function.name;
        const json = call.function?.arguments;
        if (json) {
          block.json += json;
          events.push(...content({ type: 'tool_input_delta', index, json }));
        }
      }
      if (choice.finish_reason) {
        finishReason = choice.finish_reason;
        for (let index = 0; index < blocks.length; index++) events.push(...close(index));
      }
      return events;
    },
    get producedContent() {
      return producedContent;
    },
    finish(): CompletedMessage | undefined {
      if (finishReason === null) return undefined;
      const message = {
        role: 'assistant' as const,
        content: blocks.map((block, index) => finished[index] ?? toBlock(block)),
      };
      const calls = message.content.some((block) => block.type === 'tool_use');
      return {
        message,
        stopReason: toStopReason(finishReason, calls),
        usage: usage ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      };
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
      // No signature: the format has none, and the block is never sent back to this API.
      return { type: 'thinking', thinking: block.text, signature: '' };
    case 'tool_use':
      return toolUseBlock(block.id, block.name, block.json);
  }
}

/** Ollama and some proxies finish a reply with tool calls as `stop`: the calls decide. */
function toStopReason(reason: string, calls: boolean): StopReason {
  if (calls) return 'tool_use';
  switch (reason) {
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    default:
      return 'end_turn';
  }
}

/** `prompt_tokens` counts the cached ones too; Skate's `inputTokens` are the uncached rest. */
export function toUsage(usage: NonNullable<ChatCompletionChunk['usage']>): TokenUsage {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    inputTokens: Math.max(0, (usage.prompt_tokens ?? 0) - cached),
    outputTokens: usage.completion_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}
