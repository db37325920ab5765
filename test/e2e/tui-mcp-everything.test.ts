import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, textReply as text } from '../support/cli-world.js';
import { hostDir } from '../support/host-dir.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

const EVERYTHING_SERVER = path.join(
  projectRoot(),
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
const tmux = await hasTmux();

describe.skipIf(!tmux)(
  'the real server-everything in the terminal UI (#22, tmux)',
  { timeout: 180_000 },
  () => {
    for (const columns of [80, 200]) {
      it(`at ${columns} columns: its tools called, each collapsed line readable, its executor listed`, async () => {
        await using home = await hostDir('tui-every-home-');
        await writeSkateSettings(home.path, {
          mcpServers: { every: { command: process.execPath, args: [EVERYTHING_SERVER] } },
          mcp: { toolSchemaBudget: 1_000_000 },
        });
        await using s = await skateTerminal({
          columns,
          rows: 40,
          env: { HOME: home.path },
          replies: [
            call('a', 'mcp__every__get-sum', { a: 2, b: 40 }),
            call('b', 'mcp__every__get-tiny-image', {}),
            call('c', 'mcp__every__trigger-long-running-operation', { duration: 1, steps: 2 }),
            text('All done.'),
          ],
        });
        const { terminal } = s;
        await terminal.waitFor('INSERT', 60_000);
        await s.send('use everything');
        const screen = await terminal.waitFor('All done.', 90_000);
        // Server and tool in words, the result in a few words: never the raw name or base64.
        expect(screen).toContain('every · get-sum({"a":2,"b":40}) — The sum of 2 and 40 is 42.');
        expect(screen).toContain("every · get-tiny-image() — 3 lines · Here's the image you requested:");
        // Cut to the width at 80 columns, whole at 200.
        expect(screen).toMatch(/every · trigger-long-running-operation\(.*\) — Long run/);
        expect(screen).not.toContain('mcp__every__');
        expect(screen).not.toContain('iVBORw0KGgo');
        for (const row of screen.split('\n')) expect(row.length, row).toBeLessThanOrEqual(columns);
        await s.command('executors');
        const panel = await terminal.waitFor('┌ executors');
        // Its executor, confined as its policy says.
        expect(panel).toContain('mcp every');
        expect(panel).toContain('write nothing');
        await s.command('q');
        expect((await s.exited()).status).toBe(0);
      });
    }
  },
);
