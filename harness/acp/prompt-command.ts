import type { AvailableCommand, ContentBlock } from '@agentclientprotocol/sdk';
import {
  type ParsedRuntimeCommand,
  parseRuntimeCommandLine,
  RUNTIME_COMMAND_LINES,
} from '../../shared/parse-runtime-command-line.js';
import type { RuntimeCommand } from '../../shared/runtime-command.js';
import { type McpPromptCommand, promptCommandHint } from '../mcp/mcp-prompt-commands.js';

/**
 * The runtime commands an ACP session takes as a prompt (`/compact`). Not
 * `resume`: `session/load` continues a session, and the ACP session id must
 * keep naming one conversation.
 */
const OFFERED = new Set(['compact', 'clear', 'model']);

export type AcpCommand = Extract<RuntimeCommand, { type: 'compact' | 'clear' | 'set_model' }>;

/** What `available_commands_update` lists: the offered commands, with a hint where they take an argument. */
export const AVAILABLE_COMMANDS: AvailableCommand[] = RUNTIME_COMMAND_LINES.filter((line) =>
  OFFERED.has(line.name),
).map((line) => ({
  name: line.name,
  description: line.description,
  ...(line.argument && { input: { hint: line.argument } }),
}));

/** An MCP prompt as an available command: its arguments, in order, as the input hint. */
export function availablePromptCommand(command: McpPromptCommand): AvailableCommand {
  const hint = promptCommandHint(command);
  return {
    name: command.name,
    description: command.description.slice(0, 300) || `MCP prompt of ${command.server}`,
    ...(hint && { input: { hint } }),
  };
}

/**
 * A prompt that starts with an offered command (`/model claude-x`) as that
 * command, or an error to show; undefined for a prompt for the model (any
 * other text, `/usr/bin is missing` included).
 */
export function promptCommand(
  blocks: readonly ContentBlock[],
): { ok: true; command: AcpCommand } | { ok: false; error: string } | undefined {
  const [first, ...rest] = blocks;
  if (first?.type !== 'text') return undefined;
  const match = /^\/(\w+)(?:\s+([\s\S]*))?$/.exec(first.text.trim());
  if (!match || !OFFERED.has(match[1]!)) return undefined;
  const name = match[1]!;
  if (rest.length > 0) return { ok: false, error: `/${name} takes text only, nothing attached` };
  const parsed = parseRuntimeCommandLine(name, match[2] ?? '') as ParsedRuntimeCommand;
  return parsed.ok
    ? { ok: true, command: parsed.command as AcpCommand }
    : { ok: false, error: `/${name} ${parsed.error}` };
}
