import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { Message } from '../../shared/conversation.js';
import type { ModelRequest, ModelTool } from './model-provider.js';

export interface ChatParamsOptions {
  /** OpenAI's own API wants `max_completion_tokens` (reasoning models refuse `max_tokens`); most local servers know only `max_tokens`. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

/**
 * The Chat Completions request for a `ModelRequest`, streaming, usage included. The prefix is
 * kept byte-stable from turn to turn (system message, then tools in the executor's order, then
 * the conversation, only ever appended to): that is what OpenAI's automatic prompt caching and a
 * local server's prefix cache (llama.cpp, vLLM) match on. Thinking from an earlier turn is not
 * sent back: the format has no field for it.
 */
export function toChatParams(
  request: ModelRequest,
  options: ChatParamsOptions,
): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system) messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) messages.push(...toChatMessages(message));
  return {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    [options.maxTokensField]: request.maxTokens,
    ...(request.tools.length > 0 && { tools: request.tools.map(toChatTool) }),
  };
}

function toChatTool(tool: ModelTool): ChatCompletionTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: { ...tool.inputSchema, type: 'object' },
    },
  };
}

/** One Skate message as Chat messages: tool results become `tool` messages, ahead of any user text. */
export function toChatMessages(message: Message): ChatCompletionMessageParam[] {
  if (message.role === 'assistant') {
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const calls = message.content.flatMap((block) =>
      block.type === 'tool_use'
        ? [
            {
              id: block.id,
              type: 'function' as const,
              function: { name: block.name, arguments: JSON.stringify(asObject(block.input)) },
            },
          ]
        : [],
    );
    return [
      {
        role: 'assistant',
        content: text || (calls.length > 0 ? null : ''),
        ...(calls.length > 0 && { tool_calls: calls }),
      },
    ];
  }
  const out: ChatCompletionMessageParam[] = [];
  const parts: ChatCompletionContentPart[] = [];
  for (const block of message.content) {
    if (block.type === 'tool_result') {
      out.push({ role: 'tool', tool_call_id: block.callId, content: toolResultText(block) });
    } else if (block.type === 'text') {
      if (block.text.trim() !== '') parts.push({ type: 'text', text: block.text });
    } else if (block.type === 'image') {
      parts.push({ type: 'image_url', image_url: { url: `data:${block.mediaType};base64,${block.data}` } });
    }
  }
  if (parts.length > 0) {
    // A text-only message as a string: servers that know no content parts (older llama.cpp) still take it.
    const textOnly = parts.every((part) => part.type === 'text');
    out.push({
      role: 'user',
      content: textOnly ? parts.map((part) => (part as { text: string }).text).join('\n\n') : parts,
    });
  }
  return out;
}

/** The format has no error flag on a tool result: the text says so. */
function toolResultText(block: { output: string; isError: boolean }): string {
  return block.isError ? `Error: ${block.output}` : block.output;
}

/** A call's arguments go back as an object, even one the model garbled (its error result says what it wrote). */
function asObject(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}
