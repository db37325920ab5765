import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, textReply as text } from '../support/cli-world.js';
import { hostDir } from '../support/host-dir.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

const SLOW_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'slow-server.mjs');
const tmux = await hasTmux();

/** The step a screen's running call line shows (`s · progress(...) — running 1.2s · 3/12 copying file 3`). */
function shownStep(screen: string): number | undefined {
  const match = /s · progress\(.*running [\d.]+s · (\d+)\/12 copying file \1/.exec(screen);
  return match ? Number(match[1]) : undefined;
}

describe.skipIf(!tmux)("an MCP call's progress in the terminal UI (#22, tmux)", { timeout: 180_000 }, () => {
  for (const columns of [80, 200]) {
    it(`at ${columns} columns: the running call's line shows its latest progress, updating, then the result`, async () => {
      await using home = await hostDir('tui-mcp-progress-home-');
      await writeSkateSettings(home.path, {
        mcpServers: { s: { command: process.execPath, args: [SLOW_SERVER] } },
      });
      await using s = await skateTerminal({
        columns,
        rows: 30,
        env: { HOME: home.path },
        replies: [
          call('a', 'mcp__s__progress', { steps: 12, intervalMs: 400, message: 'copying file' }),
          text('All copied.'),
          text('Title'),
        ],
      });
      const { terminal } = s;
      await terminal.waitFor('INSERT', 60_000);
      await s.send('copy the files');
      const first = await terminal.waitFor(/running [\d.]+s · \d+\/12 copying file/, 60_000);
      const firstStep = shownStep(first);
      expect(firstStep, first).toBeDefined();
      for (const row of first.split('\n')) expect(row.length, row).toBeLessThanOrEqual(columns);
      // The same line, a later step: it updates in place (one progress line on screen).
      let later = first;
      for (let i = 0; i < 300 && (shownStep(later) ?? 0) <= (firstStep ?? 0); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        later = await terminal.screen();
      }
      expect(shownStep(later), later).toBeGreaterThan(firstStep ?? 0);
      expect(later.match(/\/12 copying file/g)).toHaveLength(1);
      const done = await terminal.waitFor('All copied.', 60_000);
      expect(done).toContain('s · progress(copying file) — progress done');
      expect(done).not.toMatch(/\d+\/12 copying file/);
      await s.command('q');
      expect((await s.exited()).status).toBe(0);
    });
  }
});
