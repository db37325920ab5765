import { promptCommandHint } from '../mcp/mcp-prompt-commands.js';
import type { AgentBackend } from './agent-backend.js';
import { SLASH_ALIASES_HELP } from './ui-command.js';
import type { SlashCommandInfo } from './ui-state.js';

/** What completion offers after a `/`: the slash aliases and `backend`'s MCP prompts. */
export function slashCommandOffers(backend: AgentBackend): SlashCommandInfo[] {
  const aliases = SLASH_ALIASES_HELP.map(([name, hint, description]) => ({ name, hint, description }));
  const prompts = (backend.promptCommands?.() ?? []).map((command) => ({
    name: command.name,
    hint: promptCommandHint(command),
    description: command.description,
  }));
  return [...aliases, ...prompts];
}
