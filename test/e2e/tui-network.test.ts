import { describe, expect, it } from 'vitest';
import type { FakeReply } from '../support/fake-messages-api.js';
import { eventually } from '../support/processes.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * The network (#21) in the terminal UI as #24 asks: a host off the list is asked about, and refused
 * ("Never") it is a line in the conversation like a hook's decision, the badge says the allowlist, and after `Space n` the
 * status bar's "restarting the executor…" ends with the restart (real tmux, real proxy, real curl).
 */
const tmux = await hasTmux();
const COMMAND = 'curl -sS --max-time 30 http://refused.example.com/ 2>&1 | head -c 80';

const REPLIES: FakeReply[] = [
  {
    type: 'message',
    blocks: [{ type: 'tool_use', id: 'tu_curl', name: 'shell', input: { command: COMMAND } }],
    stopReason: 'tool_use',
    usage: { input_tokens: 100, output_tokens: 10 },
  },
  { type: 'message', blocks: [{ type: 'text', text: 'The proxy said no.' }] },
];

describe.skipIf(!tmux)(
  'network refusals and switches in the terminal UI (#21, #24, tmux)',
  { timeout: 120_000 },
  () => {
    for (const columns of [80, 200]) {
      it(`at ${columns} columns: a refused host is a line in the conversation; Space n's restart label ends with the restart`, async () => {
        await using s = await skateTerminal({
          replies: REPLIES,
          columns,
          args: ['--network', 'registry.example.com'],
        });
        const { terminal } = s;
        await terminal.waitFor('[ NET: 1 host ]');
        await s.send('fetch it');
        // A person is at this terminal, so the refused host is asked about first (#21); "Never" refuses it.
        await terminal.waitFor('Never (this session)', 60_000);
        await terminal.type('3');
        const screen = await terminal.waitFor('The proxy said no.', 60_000);
        expect(screen).toMatch(/network: refused refused\.example\.com:80 \([^)]+\)/);
        const rows = screen.replace(/\n+$/, '').split('\n');
        for (const row of rows) expect(row.length, row).toBeLessThanOrEqual(columns);
        expect(rows.at(-1)).toMatch(/\[ NET: 1 host \]/);

        // Allowlist → on: the label shows while the executor restarts and is gone once NET says on
        // (what is left is the switch's answer, `network on`).
        await s.chord('n');
        await terminal.waitFor('[ NET: on ]', 30_000);
        expect(await eventually(async () => !(await terminal.screen()).includes('restarting'))).toBe(true);
        const after = await terminal.screen();
        expect(after).not.toContain('restarting');
        expect(after.replace(/\n+$/, '').split('\n').at(-1)).toMatch(
          /^ NORMAL {2}\[ EXECUTE( · network on)? \]/,
        );
      });
    }
  },
);
