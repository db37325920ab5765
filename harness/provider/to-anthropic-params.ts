import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, Message } from '../../shared/conversation.js';
import type { ModelRequest, ModelTool } from './model-provider.js';

type BlockParam = Anthropic.ContentBlockParam;

const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };

/**
 * The Messages API request for a `ModelRequest`, streaming, with prompt-cache
 * breakpoints on the stable prefix (system prompt, last tool) and on the
 * conversation so far (last cacheable block of the last message): three of the
 * four the API allows. https://platform.claude.com/docs/en/build-with-claude/prompt-caching
 * A sub-agent's system prompt gets the fourth at the end of its dispatch prefix, so siblings
 * read each other's cache up to there (its own part, after it, differs per child).
 */
export function toAnthropicParams(request: ModelRequest): Anthropic.MessageCreateParamsStreaming {
  const messages = request.messages.map(toMessageParam);
  markLastMessage(messages);
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    stream: true,
    // An empty text block is a 400, so an empty system prompt is left out.
    ...(request.system ? { system: systemBlocks(request.system, request.systemCachePrefix) } : {}),
    messages,
    ...(request.tools.length > 0 ? { tools: request.tools.map(toTool) } : {}),
    ...(request.thinkingBudgetTokens !== undefined
      ? { thinking: { type: 'enabled', budget_tokens: request.thinkingBudgetTokens } }
      : {}),
  };
}

/** The system prompt as text blocks: split at the shared prefix when there is one, each block a breakpoint. */
function systemBlocks(system: string, prefix: number | undefined): Anthropic.TextBlockParam[] {
  if (prefix === undefined || prefix <= 0 || prefix >= system.length || system.slice(prefix).trim() === '')
    return [{ type: 'text', text: system, cache_control: EPHEMERAL }];
  return [
    { type: 'text', text: system.slice(0, prefix), cache_control: EPHEMERAL },
    { type: 'text', text: system.slice(prefix), cache_control: EPHEMERAL },
  ];
}

function toTool(tool: ModelTool, index: number, tools: readonly ModelTool[]): Anthropic.Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: { ...tool.inputSchema, type: 'object' },
    ...(index === tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  };
}

function toMessageParam(message: Message): Anthropic.MessageParam {
  // Unsigned thinking came from another provider (`:model` switched mid-conversation): the API would refuse it.
  const blocks = message.content
    .filter((block) => block.type !== 'thinking' || block.signature !== '')
    .map(toBlockParam);
  // Whitespace-only text blocks are a 400; drop them unless nothing else is left.
  const kept = blocks.filter((block) => block.type !== 'text' || block.text.trim() !== '');
  return { role: message.role, content: kept.length > 0 ? kept : blocks };
}

function toBlockParam(block: ContentBlock): BlockParam {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', source: { type: 'base64', media_type: block.mediaType, data: block.data } };
    case 'thinking':
      // Passed back exactly as received: the signature covers the text.
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: asInputObject(block.input) };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.callId,
        content: block.output,
        is_error: block.isError,
      };
  }
}

/** The API wants a tool_use input to be an object, even one the model garbled. */
function asInputObject(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

/** Thinking blocks cannot carry cache_control, and neither can empty text. */
function markLastMessage(messages: Anthropic.MessageParam[]): void {
  const content = messages.at(-1)?.content;
  if (!Array.isArray(content)) return;
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i]!;
    const cacheable =
      block.type === 'image' ||
      block.type === 'tool_use' ||
      block.type === 'tool_result' ||
      (block.type === 'text' && block.text.trim() !== '');
    if (cacheable) {
      content[i] = { ...block, cache_control: EPHEMERAL };
      return;
    }
  }
}
