import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { skateTerminal } from '../support/skate-terminal.js';
import { tempDir } from '../support/temp-dir.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * Flicker as a terminal sees it (#24, "go past the peers"): the bytes skate writes to a real tmux
 * pane while a long reply streams, recorded with pipe-pane. Ink alone clears the whole screen and
 * writes every row on each frame; through the row-diffing output no frame clears the screen, each
 * writes a fraction of a screen, and the screen tmux shows is still exactly the reply.
 */
const tmux = await hasTmux();
const LINES = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the reply, with a few words to wrap.`);

describe.skipIf(!tmux)('flicker while a reply streams (#24, tmux)', { timeout: 120_000 }, () => {
  for (const columns of [80, 200]) {
    it(`at ${columns} columns no frame clears the screen, frames rewrite only changed rows, the screen stays right`, async () => {
      const rows = 30;
      await using recorded = await tempDir('tui-flicker-');
      await using s = await skateTerminal({
        columns,
        rows,
        replies: [
          {
            type: 'message',
            blocks: [{ type: 'text', text: LINES.join('\n\n') }],
            chunkDelayMs: 4,
            usage: { input_tokens: 100, output_tokens: 500 },
          },
        ],
      });
      const { terminal } = s;
      await terminal.waitFor('INSERT');
      await s.send('stream');
      const file = path.join(recorded.path, 'pane.bytes');
      await terminal.pipeOutput(file);
      const screen = await terminal.waitFor('Line 40 of the reply', 60_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const bytes = await readFile(file, 'latin1');
      const frames = bytes.split('\x1b[?2026h').length - 1;
      const clears = bytes.split('\x1b[2J').length - 1;
      expect(frames, 'frames drawn while streaming').toBeGreaterThan(10);
      expect(clears, 'whole-screen clears while streaming').toBe(0);
      // A whole frame is every row of the screen; a changed one is a few rows.
      expect(bytes.length / frames).toBeLessThan((columns * rows) / 3);
      // What tmux shows is the reply's end, each line once, and the status bar below: no stale rows.
      const shown = screen.split('\n');
      for (const n of [36, 37, 38, 39, 40]) {
        expect(shown.filter((row) => row.includes(`Line ${n} of the reply`))).toHaveLength(1);
      }
      expect((await terminal.screen()).replace(/\n+$/, '').split('\n').at(-1)).toMatch(
        /^ INSERT {2}\[ EXECUTE/,
      );
    });
  }
});
