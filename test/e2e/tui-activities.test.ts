import { existsSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeReply } from '../support/fake-messages-api.js';
import { planModeReplies } from '../support/plan-mode-replies.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { eventually } from '../support/processes.js';
import { type SkateTerminal, skateTerminal } from '../support/skate-terminal.js';
import { tempDir } from '../support/temp-dir.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * The leader chords that switch what the agent is doing, in a real terminal
 * (tmux running the built CLI against the fake Messages API): `Space p` plans
 * under the kernel-enforced plan policy, `Space x` executes the plan in a
 * fresh agent, `Space e` edits the plan in $EDITOR, `Space a` shows the agent
 * tree and replays a sub-agent's conversation from its session log.
 */
const tmux = await hasTmux();

const PLAN = '# Plan\n\n1. Add the table.\n2. Test it.\n';

/** The screen is whole: every row fits the width, and the status bar is the last row with its badges. */
function expectIntact(screen: string, columns: number, mode: string | RegExp): void {
  const rows = screen.replace(/\n+$/, '').split('\n');
  for (const row of rows) expect(row.length, row).toBeLessThanOrEqual(columns);
  const status = rows.at(-1) ?? '';
  expect(status).toMatch(typeof mode === 'string' ? new RegExp(`^ ${mode} `) : mode);
  expect(status).toContain('[ NET: off ]');
}

async function quit(s: SkateTerminal): Promise<void> {
  await s.command('q');
  expect(await s.exited()).toEqual({ status: 0, echo: true, alternateScreen: false });
}

/** Executor processes below skate, by their command line. */
async function executors(s: SkateTerminal): Promise<string[]> {
  const skate = await s.skatePid();
  if (skate === undefined) return [];
  const lines = await Promise.all((await processDescendants(skate)).map(commandLine));
  // The node executors themselves, not bubblewrap or skate-confine (the guard's supervisor and the
  // sandbox's init), whose command lines name executor.js too.
  return lines.filter(
    (line) => !line.includes('bwrap') && !line.includes('skate-confine') && /executor\.js\b/.test(line),
  );
}

// Each flow starts several sandboxed executors on a loaded two-core machine: more time than the default.
describe.skipIf(!tmux)(
  'skate interactive UI: plan, execute, edit, agent tree (tmux)',
  { timeout: 120_000 },
  () => {
    for (const columns of [80, 200]) {
      it(`at ${columns} columns: Space p plans under the plan policy (the kernel refuses a write outside the plan), Space x starts executing it`, async () => {
        await using s = await skateTerminal({
          replies: [
            ...planModeReplies(PLAN),
            { type: 'message', blocks: [{ type: 'text', text: 'Executing the plan.' }] },
          ],
          columns,
        });
        const { terminal, api } = s;
        await terminal.waitFor('INSERT');
        await s.chord('p');
        await terminal.waitFor('[ PLAN', 30_000);
        await s.send('plan a table');
        let screen = await terminal.waitFor('The plan is written.');
        expectIntact(screen, columns, 'INSERT');
        expect(screen).toContain('› plan a table');
        expect(screen).toMatch(/▸ shell\(echo x > outside\.txt\) — exit [1-9]/);
        expect(screen).toMatch(/▸ write_file\(\.skate\/plan\.md\)/);
        // On the host: the write outside the plan never landed; the plan did.
        expect(existsSync(path.join(s.workspace, 'outside.txt'))).toBe(false);
        expect(await readFile(path.join(s.workspace, '.skate', 'plan.md'), 'utf8')).toBe(PLAN);
        expect(JSON.stringify(api.requests[0]?.body?.system)).toContain('Planning mode');
        expect(JSON.stringify(api.requests[1]?.body?.messages.at(-1))).toMatch(/Read-only file system/);

        await s.chord('x');
        // A fresh agent that starts executing at once, as `skate execute` does: no prompt to type.
        screen = await terminal.waitFor('Executing the plan.', 30_000);
        expect(screen).not.toContain('The plan is written');
        expect(screen).toContain('› Carry out the plan in your instructions.');
        expectIntact(screen, columns, /^ (INSERT|NORMAL) /);
        // The planning agent's executor was shut down: only the execute agent's is left.
        expect(await eventually(async () => (await executors(s)).length === 1, 10_000)).toBe(true);
        expect(await executors(s)).toHaveLength(1);
        const executing = api.requests[3]?.body;
        expect(JSON.stringify(executing?.system)).toContain('1. Add the table.');
        expect(JSON.stringify(executing?.system)).not.toContain('Planning mode');
        // A fresh context: only the prompt, nothing of the planning conversation.
        expect(executing?.messages).toHaveLength(1);
        expect(JSON.stringify(executing?.messages)).not.toContain('plan a table');
        await quit(s);
      });
    }

    it('Space e opens .skate/plan.md in $EDITOR on the terminal, then the UI comes back showing the edited plan', async () => {
      await using bin = await tempDir('skate-editor-');
      const editor = path.join(bin.path, 'append-editor');
      // A stand-in for vi: notes whether it had the terminal, appends a line, exits.
      await writeFile(
        editor,
        `#!/bin/sh\n[ -t 0 ] && [ -t 1 ] && echo tty > "${bin.path}/had-terminal"\necho '3. Added in the editor.' >> "$1"\n`,
      );
      await chmod(editor, 0o755);
      await using s = await skateTerminal({
        replies: [],
        columns: 100,
        files: { '.skate/plan.md': PLAN },
        env: { EDITOR: editor },
      });
      const { terminal } = s;
      await terminal.waitFor('INSERT');
      await s.chord('e');
      const screen = await terminal.waitFor('3. Added in the editor.');
      expect(screen).toContain(`${path.join(s.workspace, '.skate', 'plan.md')} (any key closes)`);
      expect(screen).toContain('1. Add the table.');
      expectIntact(screen, 100, 'NORMAL');
      expect(await terminal.alternateScreen()).toBe(true);
      expect(await readFile(path.join(bin.path, 'had-terminal'), 'utf8')).toBe('tty\n');
      expect(await readFile(path.join(s.workspace, '.skate', 'plan.md'), 'utf8')).toBe(
        `${PLAN}3. Added in the editor.\n`,
      );
      await terminal.keys('q');
      await eventually(async () => !(await terminal.screen()).includes('(any key closes)'), 5_000);
      await quit(s);
    });

    for (const columns of [80, 200]) {
      it(`at ${columns} columns: Space a shows a running sub-agent live, Enter replays its conversation read-only, Esc comes back`, async () => {
        const replies: FakeReply[] = [
          {
            type: 'message',
            blocks: [
              { type: 'text', text: 'Delegating.' },
              {
                type: 'tool_use',
                id: 'tu_spawn',
                name: 'spawn_agent',
                input: { task: 'count the lines of a.ts', write_paths: ['notes'] },
              },
            ],
            stopReason: 'tool_use',
          },
          {
            // The sub-agent takes its time, so the tree shows it running.
            type: 'message',
            chunkDelayMs: 300,
            blocks: [
              { type: 'text', text: 'Reading it.' },
              { type: 'tool_use', id: 'tu_read', name: 'read_file', input: { path: 'a.ts' } },
              {
                type: 'tool_use',
                id: 'tu_note',
                name: 'write_file',
                input: { path: 'notes/count.md', content: 'a.ts has 3 lines\n' },
              },
            ],
            stopReason: 'tool_use',
          },
          {
            type: 'message',
            blocks: [
              {
                type: 'tool_use',
                id: 'tu_done',
                name: 'complete_task',
                input: {
                  status: 'completed',
                  summary: 'a.ts has 3 lines',
                  files_changed: ['notes/count.md'],
                  tests_run: [],
                  follow_ups: [],
                },
              },
            ],
            stopReason: 'tool_use',
          },
          { type: 'message', blocks: [{ type: 'text', text: 'The helper is done.' }] },
        ];
        await using s = await skateTerminal({
          replies,
          columns,
          sessions: true,
          files: { 'a.ts': 'export function a() {\n  return 1;\n}\n' },
        });
        const { terminal } = s;
        await terminal.waitFor('INSERT');
        await s.send('delegate');
        await terminal.waitFor('Delegating.');
        await s.chord('a');
        // The panel (right of the │): the sub-agent running, with its task once its first turn starts.
        let screen = await terminal.waitFor(
          /└─ agent-1 \[running\][^\n]*\n[^\n]*│ {4}count the lines of a\.ts/,
          30_000,
        );
        expect(screen).toMatch(/│ main/);
        // Live: the same panel turns done when the sub-agent finishes.
        screen = await terminal.waitFor(/└─ agent-1 \[done ✓\]/, 30_000);
        expect(screen).toMatch(/3 calls · \d+ tok · \d+s/);
        expectIntact(screen, columns, 'NORMAL');

        await terminal.keys('Enter');
        screen = await terminal.waitFor('REPLAY agent-1');
        await terminal.waitFor('complete_task');
        screen = await terminal.screen();
        expectIntact(screen, columns, /^ REPLAY agent-1 /);
        expect(screen).toContain('Reading it.');
        expect(screen).toContain('▸ read_file(a.ts)');
        expect(screen).toContain('▸ write_file(notes/count.md)');
        expect(screen).not.toContain('Delegating.');
        // Expand the write: its content shows, as in the live view.
        await terminal.type(']]]]');
        await terminal.waitFor('▌ ▸ write_file(notes/count.md)');
        await terminal.keys('Enter');
        screen = await terminal.waitFor('▾ write_file(notes/count.md)');
        expect(screen).toContain('a.ts has 3 lines');
        // Read-only: i does not open the prompt.
        await terminal.keys('i');
        screen = await terminal.waitFor('read-only: Esc goes back');
        expect(screen).toMatch(/ REPLAY agent-1 /);

        await terminal.keys('Escape');
        screen = await terminal.waitFor(/^ NORMAL /m);
        expect(screen).toContain('Delegating.');
        expect(screen).toContain('The helper is done.');
        expect(screen).not.toContain('REPLAY');
        expect(await readFile(path.join(s.workspace, 'notes', 'count.md'), 'utf8')).toBe(
          'a.ts has 3 lines\n',
        );
        await quit(s);
      });
    }
  },
);
