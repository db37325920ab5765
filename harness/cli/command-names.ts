/** The CLI's subcommands (`skate plan …`); anything else is the agent (`skate -p`, the terminal UI). */
export const COMMAND_NAMES = [
  'plan',
  'execute',
  'tools',
  'tool',
  'executor',
  'sessions',
  'policy',
  'sandbox',
  'acp',
  'serve',
  'hooks',
  'replay',
  'mcp',
  'agents',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];
