import { ImageInput } from '../../shared/engine-events.js';
import { McpPromptResult } from '../../shared/mcp-prompts.js';
import { type McpPromptCommand, promptCommandHint } from './mcp-prompt-commands.js';

/** What a prompt typed by the user becomes: itself (not a prompt command), a user turn, or an error to show. */
export type ExpandedPrompt =
  | { kind: 'text' }
  | { kind: 'prompt'; text: string; images: ImageInput[] }
  /** `usage`: no such command or its arguments do not fit; `server`: the server failed or answered garbled. */
  | { kind: 'error'; cause: 'usage' | 'server'; error: string };

/** `/mcp__server__prompt rest…`: the command's name and the text after it; undefined for any other prompt. */
export function parsePromptCommand(text: string): { name: string; rest: string } | undefined {
  const match = /^\/(mcp__\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? { name: match[1]!, rest: match[2] ?? '' } : undefined;
}

/**
 * Positional arguments: words, or "double-quoted text" as one; past the last declared argument the
 * remaining words join it (so a last free-text argument needs no quotes).
 */
export function promptArguments(
  command: Pick<McpPromptCommand, 'name' | 'arguments'>,
  rest: string,
): { ok: true; args: Record<string, string> } | { ok: false; error: string } {
  const words = [...rest.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
  const declared = command.arguments;
  if (declared.length === 0 && words.length > 0)
    return { ok: false, error: `/${command.name} takes no arguments` };
  const args: Record<string, string> = {};
  declared.forEach((arg, index) => {
    const value = index === declared.length - 1 ? words.slice(index).join(' ') : words[index];
    if (value !== undefined && value !== '') args[arg.name] = value;
  });
  const missing = declared.filter((arg) => arg.required && args[arg.name] === undefined);
  if (missing.length > 0)
    return {
      ok: false,
      error: `/${command.name} ${promptCommandHint(command)}: missing ${missing.map((arg) => arg.name).join(', ')}`,
    };
  return { ok: true, args };
}

/** Base64 characters of one image passed to the model (the Messages API takes 5 MB an image). */
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;

/**
 * A prompt that starts with `/mcp__server__prompt`: runs the server's `getPrompt` through its
 * executor with the positional arguments and turns its messages into the user's turn (text as is,
 * an embedded text resource as text, images where the model takes them, anything else a note). The
 * text is the server's: it goes to the model as the user's message, never to a terminal raw.
 * `{kind: 'text'}` for any other prompt, which goes to the model as typed.
 */
export async function expandPromptCommand(
  commands: readonly McpPromptCommand[],
  text: string,
  signal: AbortSignal,
): Promise<ExpandedPrompt> {
  const parsed = parsePromptCommand(text);
  if (!parsed) return { kind: 'text' };
  const command = commands.find((c) => c.name === parsed.name);
  if (!command) {
    const known = commands.map((c) => `/${c.name}`).join(', ');
    return {
      kind: 'error',
      cause: 'usage',
      error: `no MCP prompt /${parsed.name.slice(0, 80)}${known ? `; the prompts: ${known}` : ' (no MCP server offers prompts)'}`,
    };
  }
  const args = promptArguments(command, parsed.rest);
  if (!args.ok) return { kind: 'error', cause: 'usage', error: args.error };
  const result = await command.get(args.args, signal);
  if (result.isError) return { kind: 'error', cause: 'server', error: `/${command.name}: ${result.output}` };
  let messages: McpPromptResult['messages'];
  try {
    messages = McpPromptResult.parse(JSON.parse(result.output)).messages;
  } catch {
    return {
      kind: 'error',
      cause: 'server',
      error: `/${command.name}: the server's answer could not be read`,
    };
  }
  const parts: string[] = [];
  const images: ImageInput[] = [];
  for (const message of messages) {
    for (const content of message.content) {
      if (content.type === 'image') {
        const image = ImageInput.safeParse({ mediaType: content.mimeType, data: content.data });
        if (image.success && content.data.length <= MAX_IMAGE_BASE64) images.push(image.data);
        else
          parts.push(
            `[image ${content.mimeType} left out: the model takes PNG, JPEG, GIF and WebP up to 5 MB]`,
          );
        continue;
      }
      parts.push(message.role === 'assistant' ? `(assistant) ${content.text}` : content.text);
    }
  }
  const joined = parts.join('\n\n').trim();
  if (joined === '' && images.length === 0)
    return { kind: 'error', cause: 'server', error: `/${command.name}: the prompt has no content` };
  return { kind: 'prompt', text: joined === '' ? `/${command.name}` : joined, images };
}
