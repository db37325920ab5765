import type { CommandMain } from '../cli-flags.js';
import { type Subcommand, withSubcommands } from '../subcommands.js';

/**
 * `skate mcp SUB`: `list [--workspace DIR] [--json]` shows every MCP server configured (settings
 * files and the workspace's .mcp.json), from where, its state and its consent; `trust|revoke NAME`
 * consents to a workspace's server as its file is now, or takes it back. Nothing is started.
 * One file per subcommand, registered here in one line.
 */
const SUBCOMMANDS: Record<string, Subcommand> = {
  list: { usage: '[--workspace DIR] [--json]', load: () => import('./mcp/mcp-list-command.js') },
  trust: { usage: 'NAME [--workspace DIR]', load: () => import('./mcp/mcp-trust-command.js') },
  revoke: { usage: 'NAME [--workspace DIR]', load: () => import('./mcp/mcp-revoke-command.js') },
  login: {
    usage: 'NAME [--workspace DIR] [--no-browser] [--timeout SECONDS]',
    load: () => loginCommand('login'),
  },
  logout: { usage: 'NAME [--workspace DIR]', load: () => loginCommand('logout') },
};

export const run = withSubcommands('mcp', SUBCOMMANDS);

/** `login` and `logout` share one module, which reads the subcommand's name first. */
async function loginCommand(sub: 'login' | 'logout'): Promise<{ run: CommandMain }> {
  const { run } = await import('./mcp-login-command.js');
  return { run: (args) => run([sub, ...args]) };
}
