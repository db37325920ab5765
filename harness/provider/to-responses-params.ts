import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseInputContent,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import type { Message } from '../../shared/conversation.js';
import type { ModelRequest, ModelTool } from './model-provider.js';

/**
 * The Responses API request for a `ModelRequest`: stateless (`store: false`, the whole
 * conversation as input items each time, as Skate keeps it), streaming. Instructions, tools and
 * the earlier items stay byte-stable across turns, the prefix OpenAI's automatic prompt caching
 * matches on. Reasoning from an earlier turn is not sent back: without `store` its items would
 * need the encrypted form, which the compatible servers do not all give.
 */
export function toResponsesParams(request: ModelRequest): ResponseCreateParamsStreaming {
  return {
    model: request.model,
    ...(request.system && { instructions: request.system }),
    input: request.messages.flatMap(toInputItems),
    stream: true,
    store: false,
    max_output_tokens: request.maxTokens,
    ...(request.tools.length > 0 && { tools: request.tools.map(toFunctionTool) }),
  };
}

function toFunctionTool(tool: ModelTool): FunctionTool {
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: { ...tool.inputSchema, type: 'object' },
    // Strict mode wants every property required and no extra ones: Skate's schemas have optional fields.
    strict: false,
  };
}

function toInputItems(message: Message): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  if (message.role === 'assistant') {
    for (const block of message.content) {
      if (block.type === 'text' && block.text !== '') items.push({ role: 'assistant', content: block.text });
      else if (block.type === 'tool_use') {
        items.push({
          type: 'function_call',
          call_id: block.id,
          name: block.name,
          arguments: JSON.stringify(asObject(block.input)),
        });
      }
    }
    return items;
  }
  const parts: ResponseInputContent[] = [];
  for (const block of message.content) {
    if (block.type === 'tool_result') {
      items.push({
        type: 'function_call_output',
        call_id: block.callId,
        output: block.isError ? `Error: ${block.output}` : block.output,
      });
    } else if (block.type === 'text' && block.text.trim() !== '') {
      parts.push({ type: 'input_text', text: block.text });
    } else if (block.type === 'image') {
      parts.push({
        type: 'input_image',
        detail: 'auto',
        image_url: `data:${block.mediaType};base64,${block.data}`,
      });
    }
  }
  if (parts.length > 0) items.push({ role: 'user', content: parts });
  return items;
}

function asObject(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}
