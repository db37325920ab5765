import type { SlashCommandInfo, UiState } from './ui-state.js';

/**
 * What completion offers for the prompt as typed: while it is `/` and a name (no space yet, the
 * cursor at its end), the commands whose names start with that name; once a known command is
 * followed by a space, that command alone (its arguments' hint). Nothing otherwise.
 */
export function slashCandidates(state: UiState): { typing: boolean; commands: SlashCommandInfo[] } {
  const none = { typing: false, commands: [] };
  const commands = state.slashCommands ?? [];
  const { text, cursor } = state.input;
  if (state.mode !== 'insert' || commands.length === 0 || !text.startsWith('/') || text.includes('\n'))
    return none;
  const space = text.search(/\s/);
  if (space === -1) {
    if (cursor !== text.length) return none;
    const typed = text.slice(1);
    return { typing: true, commands: commands.filter((c) => c.name.startsWith(typed)) };
  }
  const named = commands.find((c) => c.name === text.slice(1, space));
  return named?.hint ? { typing: false, commands: [named] } : none;
}

/**
 * Tab while a command name is typed: the one match completed (and a space after it), or the
 * matches' longest common prefix; undefined when Tab has nothing to complete.
 */
export function completeSlash(state: UiState): UiState | undefined {
  const { typing, commands } = slashCandidates(state);
  if (!typing || commands.length === 0) return undefined;
  const names = commands.map((c) => c.name);
  let common = names[0]!;
  for (const name of names) while (!name.startsWith(common)) common = common.slice(0, -1);
  const text = names.length === 1 ? `/${common} ` : `/${common}`;
  if (text === state.input.text) return undefined;
  const { historyIndex: _walked, ...rest } = state;
  return { ...rest, input: { text, cursor: text.length } };
}
