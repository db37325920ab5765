/** Claude Code's tool names for Skate's tools, so matchers written for it (`Bash`, `Edit|Write`) match. */
export const CLAUDE_CODE_TOOL_NAMES: Readonly<Record<string, string>> = {
  shell: 'Bash',
  edit_file: 'Edit',
  write_file: 'Write',
  read_file: 'Read',
  grep: 'Grep',
  glob: 'Glob',
  list_dir: 'LS',
  spawn_agent: 'Task',
  ask_user: 'AskUserQuestion',
};

/**
 * Claude Code's matcher rule: absent, empty or `*` matches every tool; otherwise a regular
 * expression that must match the whole name (`Edit|Write`, `mcp__memory__.*`). Tried on Skate's
 * name and on Claude Code's name for the same tool. A matcher that is not a valid expression
 * matches the name exactly.
 */
export function matchesTool(matcher: string | undefined, toolName: string): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  const names = [toolName, CLAUDE_CODE_TOOL_NAMES[toolName]].filter((n): n is string => Boolean(n));
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${matcher})$`);
  } catch {
    return names.includes(matcher);
  }
  return names.some((name) => pattern.test(name));
}
