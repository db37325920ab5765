import { describe, expect, it } from 'vitest';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * The conversation kept copyable (#24, "go past the peers"): `:scrollback` steps out of the
 * full-screen view and prints the conversation into the terminal's own scrollback, where a person
 * scrolls, selects and copies it with the terminal's tools; any key comes back to the view, and
 * what was printed stays on the main screen after skate quits.
 */
const tmux = await hasTmux();
const LINES = Array.from({ length: 60 }, (_, i) => `Reply line ${i + 1} to copy.`);

describe.skipIf(!tmux)(
  "the conversation in the terminal's scrollback (#24, tmux)",
  { timeout: 120_000 },
  () => {
    for (const columns of [80, 200]) {
      it(`at ${columns} columns: :scrollback prints every line of it, a key comes back, it stays after quitting`, async () => {
        await using s = await skateTerminal({
          columns,
          rows: 24,
          replies: [
            {
              type: 'message',
              blocks: [{ type: 'text', text: LINES.join('\n\n') }],
              usage: { input_tokens: 100, output_tokens: 200 },
            },
          ],
        });
        const { terminal } = s;
        await terminal.waitFor('INSERT');
        await s.send('write sixty lines');
        await terminal.waitFor('Reply line 60 to copy.', 60_000);
        // The view shows its last rows only: the first line is out of sight.
        expect(await terminal.screen()).not.toContain('Reply line 1 to');

        await s.command('scrollback');
        let screen = await terminal.waitFor('any key goes back to skate');
        expect(await terminal.alternateScreen()).toBe(false);
        const history = await terminal.history();
        expect(history).toContain('› write sixty lines');
        for (const line of LINES)
          expect(history.split('\n').filter((row) => row.includes(line))).toHaveLength(1);

        // A key comes back to the view, as it was, and is not taken as a key of the view.
        await terminal.keys('i');
        screen = await terminal.waitFor(/back from the scrollback/);
        expect(await terminal.alternateScreen()).toBe(true);
        expect(screen).toContain('Reply line 60 to copy.');
        expect(screen).toMatch(/^ NORMAL /m);
        const rows = screen.replace(/\n+$/, '').split('\n');
        expect(rows).toHaveLength(24);
        for (const row of rows) expect(row.length, row).toBeLessThanOrEqual(columns);

        await s.command('q');
        expect((await s.exited()).status).toBe(0);
        // Back on the main screen, the conversation printed there is still in the scrollback.
        expect(await terminal.history()).toContain('Reply line 1 to copy.');
      });
    }
  },
);
