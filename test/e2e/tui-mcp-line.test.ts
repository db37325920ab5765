import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, textReply as text } from '../support/cli-world.js';
import { hostDir } from '../support/host-dir.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { type SkateTerminal, skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const tmux = await hasTmux();

function expectMcpLines(screen: string): void {
  // Server and tool in words, the result summarised (a JSON result by its shape, never raw).
  expect(screen).toContain('t · echo(hi there) — echo: hi there');
  expect(screen).toContain('t · status() — JSON · {id, title, state}');
  expect(screen).not.toContain('mcp__t__');
  expect(screen).not.toContain('"title"');
}

async function sessionIds(s: SkateTerminal): Promise<string[]> {
  const names = await readdir(path.join(s.workspace, '.skate', 'sessions'));
  return names.filter((name) => name.endsWith('.jsonl')).map((name) => name.slice(0, -'.jsonl'.length));
}

describe.skipIf(!tmux)(
  "an MCP call's collapsed line in the terminal UI (#22, tmux)",
  { timeout: 180_000 },
  () => {
    for (const columns of [80, 200]) {
      it(`at ${columns} columns: "server · tool(args) — summary", live and after resume`, async () => {
        await using home = await hostDir('tui-mcp-home-');
        await writeSkateSettings(home.path, {
          mcpServers: { t: { command: process.execPath, args: [TEST_SERVER] } },
        });
        await using s = await skateTerminal({
          columns,
          rows: 30,
          sessions: true,
          env: { HOME: home.path },
          replies: [
            call('a', 'mcp__t__echo', { text: 'hi there' }),
            call('b', 'mcp__t__status', {}),
            text('All done.'),
            text('Title'),
            text('Title'),
          ],
        });
        const { terminal } = s;
        await terminal.waitFor('INSERT', 60_000);
        await s.send('use the server');
        let screen = await terminal.waitFor('All done.', 90_000);
        expectMcpLines(screen);
        for (const row of screen.split('\n')) expect(row.length, row).toBeLessThanOrEqual(columns);

        const [first] = await sessionIds(s);
        await s.command('clear');
        await terminal.waitFor(/^(?![\s\S]*All done\.)[\s\S]*network {3}off/);
        await s.command(`resume ${first}`);
        screen = await terminal.waitFor('All done.');
        expectMcpLines(screen);
        await s.command('q');
        expect((await s.exited()).status).toBe(0);
      });
    }
  },
);
