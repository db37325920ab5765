import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeMessagesApi, FakeReply } from '../support/fake-messages-api.js';
import { eventually } from '../support/processes.js';
import { type SkateTerminal, skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * Issue #24 as a person meets it, in a real terminal at 80 and 200 columns:
 * one tmux session per width walks every item (first screen, summaries live and
 * after resume, the leader waiting, Esc keeping an approval, labels ending with
 * their cause, the status bar, :model, :policy scrolling, the id on quit).
 */
const tmux = await hasTmux();

const A_TS = 'export function a() {\n  return 1;\n}\n';
const message = (blocks: Extract<FakeReply, { type: 'message' }>['blocks'], extra = {}): FakeReply => ({
  type: 'message',
  blocks,
  stopReason: blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
  usage: { input_tokens: 5000, output_tokens: 30, cache_read_input_tokens: 2400 },
  ...extra,
});

const REPLIES: FakeReply[] = [
  // The first run: a read, an edit, a command; a question; a sub-agent; done.
  message([
    { type: 'text', text: 'Looking.' },
    { type: 'tool_use', id: 'tu_read', name: 'read_file', input: { path: 'a.ts' } },
    {
      type: 'tool_use',
      id: 'tu_edit',
      name: 'edit_file',
      input: { path: 'a.ts', old_string: '  return 1;', new_string: '  return 2;' },
    },
    { type: 'tool_use', id: 'tu_shell', name: 'shell', input: { command: 'printf "1\\n2\\n3\\n"' } },
  ]),
  message([
    {
      type: 'tool_use',
      id: 'tu_ask',
      name: 'ask_user',
      input: { questions: [{ question: 'Should I also add a unit test?', options: ['Yes', 'No'] }] },
    },
  ]),
  message([
    {
      type: 'tool_use',
      id: 'tu_spawn',
      name: 'spawn_agent',
      input: { task: 'Review constants', write_paths: ['notes'] },
    },
  ]),
  message([
    {
      type: 'tool_use',
      id: 'tu_done',
      name: 'complete_task',
      input: {
        status: 'completed',
        summary: 'Constants are fine.',
        files_changed: [],
        tests_run: [],
        follow_ups: [],
      },
    },
  ]),
  message([{ type: 'text', text: 'All done.' }]),
  // The session's title (a cheap model, after the first run).
  message([{ type: 'text', text: 'Polish session' }]),
  // After resuming: a command that runs until Ctrl-C.
  message([{ type: 'tool_use', id: 'tu_sleep', name: 'shell', input: { command: 'sleep 60' } }]),
  // Under :approval ask: a write that waits for a yes.
  message([
    { type: 'tool_use', id: 'tu_write', name: 'write_file', input: { path: 'b.txt', content: 'kept\n' } },
  ]),
  message([{ type: 'text', text: 'Wrote it.' }]),
];

/** The collapsed lines of the first run, as they must read live and after a resume. */
const SUMMARIES = [
  '▸ read_file(a.ts) — lines 1–3 of 3',
  '▸ edit_file(a.ts) — +1 −1',
  /▸ shell\(printf [^)]*\) — exit 0 · 3 lines · \d+ ms/,
  '▸ ask_user(Should I also add a unit test?) — answered: Yes',
  /▸ spawn_agent\(Review constants\) — completed · 1 tool call · [\d.k]+ tokens/,
];

function expectSummaries(screen: string): void {
  for (const line of SUMMARIES) {
    if (typeof line === 'string') expect(screen).toContain(line);
    else expect(screen).toMatch(line);
  }
  expect(screen).not.toMatch(/— \{|ask_user\(\{/);
}

/** Every row fits; the last is the status bar with its badges. */
function expectIntact(screen: string, columns: number): string {
  const rows = screen.replace(/\n+$/, '').split('\n');
  for (const row of rows) expect(row.length, row).toBeLessThanOrEqual(columns);
  const status = rows.at(-1) ?? '';
  expect(status).toMatch(/^ (INSERT|NORMAL|COMMAND) {2}\[ (EXECUTE|PLAN)/);
  expect(status).toMatch(/\[ NET: (on|off) \]/);
  return status;
}

async function requestsDone(api: FakeMessagesApi, count: number): Promise<void> {
  for (let i = 0; i < 400 && api.requests.length < count; i++) await new Promise((r) => setTimeout(r, 50));
  expect(api.requests.length).toBeGreaterThanOrEqual(count);
  await api.requests[count - 1]!.finished;
}

async function sessionIds(s: SkateTerminal): Promise<string[]> {
  const names = await readdir(path.join(s.workspace, '.skate', 'sessions'));
  return names.filter((name) => name.endsWith('.jsonl')).map((name) => name.slice(0, -'.jsonl'.length));
}

describe.skipIf(!tmux)(
  'the terminal UI a Claude Code user stays in (#24, tmux)',
  { timeout: 180_000 },
  () => {
    for (const columns of [80, 200]) {
      it(`at ${columns} columns: first screen, summaries live and resumed, leader, Esc, labels, status bar, :model, :policy, quit`, async () => {
        await using s = await skateTerminal({
          replies: REPLIES,
          columns,
          rows: 30,
          sessions: true,
          files: { 'a.ts': A_TS },
        });
        const { terminal, api } = s;

        // Item 8, 9: the first screen says where and how the agent works, and two tips.
        let screen = await terminal.waitFor('network   off');
        expect(screen).toContain(s.workspace);
        expect(screen).toContain('claude-sonnet-4-5');
        expect(screen).toMatch(/policy {4}execute/);
        expect(screen).toContain('approval  auto: tools run without asking; the sandbox is the gate');
        expect(screen).toContain('Space m');
        expect(screen).toContain(':help');
        expectIntact(screen, columns);

        // Items 1, 4: every collapsed line in words.
        await s.send('polish it');
        screen = await terminal.waitFor('Should I also add a unit test?');
        // Item 8: one › (the question's), not the prompt's too.
        await terminal.keys('Enter');
        screen = await terminal.waitFor('All done.', 60_000);
        expectSummaries(screen);
        const status = expectIntact(screen, columns);
        // Item 6: cost and the model (short at 80) stay; at 200 the tokens too.
        expect(status).toContain('$');
        expect(status).toMatch(columns >= 120 ? / claude-sonnet-4-5$/ : / (claude-)?sonnet-4-5$/);
        if (columns >= 200) expect(status).toMatch(/i:\d+\(c:\d+\) o:\d+ \| total i:\d+ o:\d+/);
        expect(await readFile(path.join(s.workspace, 'a.ts'), 'utf8')).toContain('return 2;');
        await requestsDone(api, 6);

        // Item 4: the same lines after the session is cleared and resumed from its log.
        const [first] = await sessionIds(s);
        await s.command('clear');
        await terminal.waitFor(/^(?![\s\S]*All done\.)[\s\S]*network {3}off/);
        await s.command(`resume ${first}`);
        screen = await terminal.waitFor('All done.');
        expectSummaries(screen);

        // Item 3: Ctrl-C ends "interrupting…" with the run, and the conversation says so.
        await s.send('sleep');
        await terminal.waitFor(/running shell/);
        await terminal.keys('C-c');
        screen = await terminal.waitFor('■ interrupted', 30_000);
        await eventually(async () => !(await terminal.screen()).includes('interrupting'));
        expect(expectIntact(await terminal.screen(), columns)).not.toContain('interrupting');

        // Item 7: Esc leaves INSERT and keeps the approval; y approves and the file lands.
        await s.command('approval ask');
        await terminal.waitFor('approval ask: done');
        await s.send('write b');
        await terminal.waitFor('? allow this change: write_file(b.txt)');
        await terminal.keys('Escape');
        screen = await terminal.waitFor(/^ NORMAL /m);
        expect(screen).toContain('? allow this change: write_file(b.txt)');
        expect(screen).toContain('approval waits: y or n');
        expect(existsSync(path.join(s.workspace, 'b.txt'))).toBe(false);
        await terminal.keys('y');
        await terminal.waitFor('Wrote it.', 30_000);
        expect(await readFile(path.join(s.workspace, 'b.txt'), 'utf8')).toBe('kept\n');

        // Item 2: Space, a pause to read (longer than the old 1 s timeout), then `a`: the agent tree.
        await s.normal();
        await terminal.keys('Space');
        await terminal.waitFor('agent tree');
        await new Promise((resolve) => setTimeout(resolve, 1_600));
        screen = await terminal.screen();
        expect(screen).toContain('a  agent tree');
        await terminal.type('a');
        screen = await terminal.waitFor(/│ agents · Enter replays/);
        expect(screen).toMatch(/^ NORMAL /m);
        await terminal.keys('Escape');
        await terminal.waitFor(/^(?![\s\S]*│ agents)[\s\S]* NORMAL /);

        // Item 8: :model checks the catalog.
        await s.command('model gpt-4');
        await terminal.waitFor('no model gpt-4 in the catalog');
        // :policy scrolls rather than stopping at "… more lines".
        await s.command('policy');
        screen = await terminal.waitFor(/lines 1–\d+ of \d+ · j\/k/);
        await terminal.keys('j');
        screen = await terminal.waitFor(/lines 2–\d+ of \d+ · j\/k/);
        expectIntact(screen, columns);
        await terminal.keys('q');
        await terminal.waitFor(/^(?![\s\S]*lines 2–)[\s\S]* NORMAL /);

        // Item 8: quitting says which session this was and how to resume it.
        await s.command('q');
        screen = await terminal.waitFor('EXITED 0');
        // At 80 columns the line wraps: read it whole.
        expect(screen.replaceAll('\n', '')).toContain(
          `session ${first} · resume with: skate --resume ${first}`,
        );
      });
    }
  },
);
