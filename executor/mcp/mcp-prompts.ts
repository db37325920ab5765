import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  MAX_PROMPT_ARGUMENTS,
  type McpPromptArgument,
  type McpPromptContent,
  McpPromptName,
  type McpPromptResult,
} from '../../shared/mcp-prompts.js';
import type { ToolOutcome } from '../define-tool.js';

/** One prompt as the server lists it, kept to what a slash command shows. */
export interface McpPromptInfo {
  name: string;
  description: string;
  arguments: McpPromptArgument[];
}

/** Prompts kept of one server; a listing past it is cut (its own text, offered to the user). */
const MAX_PROMPTS = 200;
/** Characters of a prompt's text passed on, all messages together; the rest is cut, and said. */
const MAX_PROMPT_CHARS = 100_000;
/** Messages of one prompt passed on; past it, a note says how many were left out. */
const MAX_MESSAGES = 100;
/** Room kept in the output for the JSON around the messages (MAX_MESSAGES wrappers, cut notes). */
const RESERVE_BYTES = 16 * 1024;

/** The server's prompts whose names can be slash commands; others are left out, and said on stderr. */
export async function listPromptInfos(client: Client): Promise<McpPromptInfo[]> {
  const prompts: McpPromptInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listPrompts(cursor ? { cursor } : undefined);
    for (const prompt of page.prompts) {
      const args = prompt.arguments ?? [];
      if (!McpPromptName.safeParse(prompt.name).success || args.length > MAX_PROMPT_ARGUMENTS) {
        process.stderr.write(
          `skate executor: MCP prompt ${JSON.stringify(prompt.name.slice(0, 80))} left out: its name or arguments cannot be a command\n`,
        );
        continue;
      }
      prompts.push({
        name: prompt.name,
        description: (prompt.description ?? prompt.title ?? '').slice(0, 1000),
        arguments: args.map((arg) => ({
          name: arg.name.slice(0, 64),
          ...(arg.description && { description: arg.description.slice(0, 300) }),
          required: arg.required === true,
        })),
      });
    }
    cursor = page.nextCursor;
  } while (cursor && prompts.length < MAX_PROMPTS);
  return prompts.slice(0, MAX_PROMPTS);
}

/**
 * One prompt's messages (`getPrompt`) as JSON (`McpPromptResult`) within `limitBytes`: text cut
 * past MAX_PROMPT_CHARS in all, an image kept only while the whole still fits, everything else
 * (audio, a binary resource, an image past the bound) a note in words.
 */
export async function getPromptOutcome(
  client: Client,
  name: string,
  args: Record<string, string>,
  options: { signal: AbortSignal; timeout: number },
  limitBytes: number,
): Promise<ToolOutcome> {
  const got = await client.getPrompt({ name, arguments: args }, options);
  let chars = 0;
  // Bytes of the output's JSON left: what JSON escapes (control characters, six bytes each) counts.
  let room = limitBytes - RESERVE_BYTES;
  const text = (value: string): McpPromptContent => {
    let kept = value.slice(0, Math.max(0, MAX_PROMPT_CHARS - chars));
    while (kept.length > 0 && jsonBytes(kept) > room) kept = kept.slice(0, Math.floor(kept.length * 0.8));
    chars += kept.length;
    room -= jsonBytes(kept);
    return {
      type: 'text',
      text: kept.length < value.length ? `${kept}\n[cut: ${value.length} characters]` : kept,
    };
  };
  const messages: McpPromptResult['messages'] = got.messages.slice(0, MAX_MESSAGES).map((message) => {
    const block = message.content as Record<string, unknown>;
    let content: McpPromptContent;
    switch (block.type) {
      case 'text':
        content = text(String(block.text ?? ''));
        break;
      case 'image': {
        const data = String(block.data ?? '');
        const mimeType = String(block.mimeType ?? '').slice(0, 100);
        if (jsonBytes(data) + 200 < room) {
          room -= jsonBytes(data) + 200;
          content = { type: 'image', mimeType, data };
        } else
          content = { type: 'note', text: `[image ${mimeType} left out: ${data.length} base64 characters]` };
        break;
      }
      case 'resource': {
        const resource = (block.resource ?? {}) as Record<string, unknown>;
        content =
          typeof resource.text === 'string'
            ? text(resource.text)
            : {
                type: 'note',
                text: `[resource ${String(resource.uri ?? '').slice(0, 300)} ${String(resource.mimeType ?? '').slice(0, 100)}, not text]`,
              };
        break;
      }
      case 'resource_link':
        content = { type: 'note', text: `[resource ${String(block.uri ?? '').slice(0, 300)}]` };
        break;
      default:
        content = { type: 'note', text: `[${String(block.type).slice(0, 40)} content left out]` };
    }
    return { role: message.role === 'assistant' ? 'assistant' : 'user', content: [content] };
  });
  if (got.messages.length > MAX_MESSAGES)
    messages.push({
      role: 'user',
      content: [{ type: 'note', text: `[${got.messages.length - MAX_MESSAGES} more messages left out]` }],
    });
  const result: McpPromptResult = {
    ...(got.description && { description: got.description.slice(0, 1000) }),
    messages,
  };
  return { output: JSON.stringify(result) };
}

function jsonBytes(value: string): number {
  return Buffer.byteLength(JSON.stringify(value));
}
