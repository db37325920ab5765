import { describe, expect, it } from 'vitest';
import { toolCall as call } from '../support/cli-world.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * A background sub-agent in the terminal UI's agent tree (issue #25), in real tmux at 80 and 200
 * columns: shown live while the parent is idle (its current tool), and cancelled with `x`.
 */
const tmux = await hasTmux();

describe.skipIf(!tmux)('background sub-agents in the agent tree (tmux)', { timeout: 120_000 }, () => {
  for (const columns of [80, 200]) {
    it(`at ${columns} columns: a running background child is shown live and x cancels it`, async () => {
      await using s = await skateTerminal({
        replies: [
          call('s1', 'spawn_agent', { task: 'BG-TUI: wait a minute', background: true }),
          { type: 'message', blocks: [{ type: 'text', text: 'Started it.' }] },
        ],
        columns,
        rows: 30,
        sessions: true,
      });
      const { terminal, api } = s;
      api.enqueueFor('BG-TUI', call('c1', 'shell', { command: 'sleep 60' }));
      await terminal.waitFor('network   off');
      await s.send('start one');
      // The parent's run ends; the child goes on.
      await terminal.waitFor('Started it.', 60_000);
      await s.normal();
      await terminal.keys('Space');
      await terminal.waitFor('agent tree');
      await terminal.type('a');
      let screen = await terminal.waitFor(/▸ shell/, 30_000);
      expect(screen).toMatch(/bg-1 \[running\]/);
      expect(screen).toMatch(/agents · Enter replays · x ca/);
      await terminal.type('x');
      screen = await terminal.waitFor(/bg-1 \[cancelled\]/, 30_000);
      expect(screen).not.toMatch(/▸ shell/);
      await terminal.keys('Escape');
      await s.command('q');
      await terminal.waitFor('EXITED 0');
    });
  }
});
