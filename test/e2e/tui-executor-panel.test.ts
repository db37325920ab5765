import { describe, expect, it } from 'vitest';
import type { FakeReply } from '../support/fake-messages-api.js';
import { eventually, isAlive } from '../support/processes.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux, type TmuxTerminal } from '../support/tmux-terminal.js';

/**
 * The executor panel (#24) as a person meets it: real tmux, the real CLI, real executors under
 * bubblewrap and the real allowlist proxy. A sub-agent tries a host off the list (its proxy
 * refuses it; nobody is asked for a sub-agent) and then keeps running, while the panel (Space s)
 * shows both executors, the sub-agent's denial with its host, and updates as it happens.
 */
const tmux = await hasTmux();
const COMMAND = 'curl -sS --max-time 10 http://refused.example.com/ 2>&1 | head -c 60; sleep 12';

const message = (blocks: Extract<FakeReply, { type: 'message' }>['blocks']): FakeReply => ({
  type: 'message',
  blocks,
  stopReason: blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
  usage: { input_tokens: 100, output_tokens: 10 },
});

const REPLIES: FakeReply[] = [
  message([{ type: 'tool_use', id: 'tu_spawn', name: 'spawn_agent', input: { task: 'Fetch it and wait' } }]),
  message([{ type: 'tool_use', id: 'tu_curl', name: 'shell', input: { command: COMMAND } }]),
  message([
    {
      type: 'tool_use',
      id: 'tu_done',
      name: 'complete_task',
      input: { status: 'completed', summary: 'Refused.', files_changed: [], tests_run: [], follow_ups: [] },
    },
  ]),
  message([{ type: 'text', text: 'All done.' }]),
];

/** Waits until the panel is no longer on the screen. */
async function closed(terminal: TmuxTerminal): Promise<void> {
  if (await eventually(async () => !(await terminal.screen()).includes('┌ executors'), 10_000)) return;
  throw new Error(`the panel stayed open:\n${await terminal.screen()}`);
}

describe.skipIf(!tmux)('the executor panel in the terminal UI (#24, tmux)', { timeout: 120_000 }, () => {
  for (const columns of [80, 200]) {
    it(`at ${columns} columns: a row per executor, live denials with their host, Esc/q closes`, async () => {
      await using s = await skateTerminal({
        replies: REPLIES,
        columns,
        rows: 34,
        args: ['--network', 'registry.example.com'],
      });
      const { terminal } = s;
      await terminal.waitFor('[ NET: 1 host ]');
      await s.send('delegate it');
      // Open while the sub-agent still starts: the panel follows what happens, without reopening.
      await terminal.waitFor(/spawn_agent/, 30_000);
      await s.chord('s');
      await terminal.waitFor('┌ executors');
      const screen = await terminal.waitFor(/✗ net refused\.example\.com:80 refused/, 60_000);

      const rows = screen.replace(/\n+$/, '').split('\n');
      for (const row of rows) expect(row.length, row).toBeLessThanOrEqual(columns);
      const main = /● main · pid (\d+) · ready · up \d+m?\d*s · \d+ calls? · no denials/.exec(screen);
      expect(main, screen).not.toBeNull();
      const child = /● sub-agent agent-1 · pid (\d+) · ready · up \d+s · 0 calls · 1 denial/.exec(screen);
      expect(child, screen).not.toBeNull();
      // The pids are the executors' real processes, running on this host now.
      expect(await isAlive(Number(main![1]))).toBe(true);
      expect(await isAlive(Number(child![1]))).toBe(true);
      expect(main![1]).not.toBe(child![1]);
      expect(screen).toContain('policy execute · net 1 host · write ');
      expect(screen).toMatch(/limits \d+ s\/command · \d+ MiB · \d+ processes/);
      if (columns === 200) {
        expect(screen).toContain(
          '✗ net refused.example.com:80 refused (not on the allowlist) — curl -sS --max-time 10 http://refused.example.com/',
        );
      }

      // Other keys leave it open; q closes it. Esc closes it too, reopened with :executors.
      await terminal.type('x');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await terminal.screen()).toContain('┌ executors');
      await terminal.type('q');
      await closed(terminal);
      await s.command('executors');
      await terminal.waitFor('┌ executors');
      await terminal.keys('Escape');
      await closed(terminal);

      // Once the sub-agent ended, its executor is gone from the host and its row says so.
      await terminal.waitFor('All done.', 60_000);
      await s.chord('s');
      const after = await terminal.waitFor(
        /○ sub-agent agent-1 · pid \d+ · stopped · ran \d+s · 1 call · 1 denial/,
      );
      expect(after).toMatch(/● main · pid \d+ · ready/);
      expect(await isAlive(Number(child![1]))).toBe(false);
    });
  }
});
