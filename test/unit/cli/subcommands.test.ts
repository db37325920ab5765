import { describe, expect, it } from 'vitest';
import { type Subcommand, withSubcommands } from '../../../harness/cli/subcommands.js';
import { UsageError } from '../../../harness/cli/usage-error.js';

describe('withSubcommands', () => {
  const seen: string[][] = [];
  const table: Record<string, Subcommand> = {
    list: {
      usage: '[--json]',
      load: async () => ({
        run: async (args) => {
          seen.push(['list', ...args]);
          return 0;
        },
      }),
    },
    // A new subcommand is one entry: its own module, loaded only when run.
    login: {
      usage: 'NAME',
      load: async () => ({
        run: async (args) => {
          seen.push(['login', ...args]);
          return 3;
        },
      }),
    },
  };
  const run = withSubcommands('mcp', table);

  it('runs the named subcommand with the arguments after its name', async () => {
    expect(await run(['list', '--json'])).toBe(0);
    expect(await run(['login', 'fs'])).toBe(3);
    expect(seen).toEqual([
      ['list', '--json'],
      ['login', 'fs'],
    ]);
  });

  it('answers an unknown or missing subcommand with every form it takes', async () => {
    for (const args of [[], ['lst'], ['toString'], ['__proto__']]) {
      const error = await run(args).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toBe(
        'the mcp command is `skate mcp list [--json]` or `skate mcp login NAME`',
      );
    }
  });
});
