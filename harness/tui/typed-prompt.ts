import type { ImageInput } from '../../shared/engine-events.js';
import { expandPromptCommand } from '../mcp/expand-prompt-command.js';
import { expandResourceMentions } from '../mcp/expand-resource-mentions.js';
import type { AgentBackend } from './agent-backend.js';

/** What one typed prompt becomes: the turn to send, or an error to show in the conversation (nothing sent). */
export type TypedPrompt =
  | { kind: 'send'; text: string; options: { images?: ImageInput[] } }
  | { kind: 'error'; error: string };

/**
 * A prompt as typed in the terminal UI: `/mcp__server__prompt a b` becomes the server's prompt (the
 * same expansion as `skate -p` and ACP); otherwise its `@server:uri` mentions are read and attached
 * (a prompt command's text is the server's, so mentions in it are left as they are); any other text
 * is sent as it is.
 */
export async function expandTypedPrompt(
  text: string,
  backend: Pick<AgentBackend, 'promptCommands' | 'resourceServers'>,
  signal: AbortSignal,
): Promise<TypedPrompt> {
  const expanded = await expandPromptCommand(backend.promptCommands?.() ?? [], text, signal);
  if (expanded.kind === 'error') return { kind: 'error', error: expanded.error };
  if (expanded.kind === 'prompt')
    return {
      kind: 'send',
      text: expanded.text,
      options: expanded.images.length > 0 ? { images: expanded.images } : {},
    };
  const mentioned = await expandResourceMentions(text, backend.resourceServers?.() ?? [], signal);
  if (mentioned.kind === 'error') return { kind: 'error', error: mentioned.error };
  return { kind: 'send', text: mentioned.text, options: {} };
}
