import type { CommandMain } from './cli-flags.js';
import { UsageError } from './usage-error.js';

/** One subcommand (`skate mcp list`): how it is written after its name, and its module, loaded only when run. */
export interface Subcommand {
  /** The arguments after the subcommand's name, for the usage error (`[--workspace DIR] [--json]`). */
  usage: string;
  load: () => Promise<{ run: CommandMain }>;
}

/**
 * A command made of subcommands: `skate COMMAND SUB ARGS…` runs SUB's module with ARGS. A new
 * subcommand is a file of its own and one entry in the command's table.
 */
export function withSubcommands(command: string, table: Readonly<Record<string, Subcommand>>): CommandMain {
  return async (args) => {
    const [sub, ...rest] = args;
    const entry = sub !== undefined && Object.hasOwn(table, sub) ? table[sub] : undefined;
    if (!entry) {
      const forms = Object.entries(table).map(
        ([name, { usage }]) => `\`skate ${command} ${name}${usage ? ` ${usage}` : ''}\``,
      );
      const listed =
        forms.length > 1 ? `${forms.slice(0, -1).join(', ')} or ${forms.at(-1)}` : (forms[0] ?? '');
      throw new UsageError(`the ${command} command is ${listed}`);
    }
    return (await entry.load()).run(rest);
  };
}
