import { describe, expect, it } from 'vitest';
import { toolCall as call, textReply as text } from '../support/cli-world.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * The agent tree after two prompts that each start a sub-agent, in real tmux at 80 and 200
 * columns: two children, `agent-1` and `agent-2` (ids are the session's, not the run's).
 */
const tmux = await hasTmux();

describe.skipIf(!tmux)('sub-agent ids in the agent tree (tmux)', { timeout: 120_000 }, () => {
  for (const columns of [80, 200]) {
    it(`at ${columns} columns: two prompts' children are agent-1 and agent-2`, async () => {
      await using s = await skateTerminal({
        replies: [
          call('s1', 'spawn_agent', { task: 'TREE-ONE: look' }),
          text('First reported.'),
          call('s1', 'spawn_agent', { task: 'TREE-TWO: look' }),
          text('Second reported.'),
        ],
        columns,
        rows: 30,
      });
      const { terminal, api } = s;
      for (const marker of ['TREE-ONE', 'TREE-TWO'])
        api.enqueueFor(
          marker,
          call('c1', 'complete_task', { status: 'completed', summary: `${marker} done` }),
        );
      await terminal.waitFor('network   off');
      await s.send('first');
      await terminal.waitFor('First reported.', 60_000);
      await s.send('second');
      await terminal.waitFor('Second reported.', 60_000);
      await s.normal();
      await terminal.keys('Space');
      await terminal.waitFor('agent tree');
      await terminal.type('a');
      const screen = await terminal.waitFor(/agent-2 \[/, 30_000);
      expect(screen).toMatch(/agent-1 \[/);
      expect(screen.match(/agent-1 \[/g)).toHaveLength(1);
      await terminal.keys('Escape');
      await s.command('q');
      await terminal.waitFor('EXITED 0');
    });
  }
});
