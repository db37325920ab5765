import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeReply } from '../support/fake-messages-api.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { eventually, pidsWithMarker } from '../support/processes.js';
import { type SkateTerminal, skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * The interactive UI in a real terminal: tmux runs `skate` (the built CLI)
 * against the local Messages API server; keys go in with send-keys and the
 * screen comes back with capture-pane. After skate exits, the pane's shell
 * prints the exit status and whether the terminal echoes again.
 */
const tmux = await hasTmux();

const READ_EDIT_RUN: FakeReply[] = [
  {
    type: 'message',
    blocks: [
      { type: 'text', text: 'Reading **a.ts** first.' },
      { type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 'a.ts' } },
    ],
    stopReason: 'tool_use',
    usage: { input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 800 },
  },
  {
    type: 'message',
    blocks: [
      {
        type: 'tool_use',
        id: 'tu_2',
        name: 'edit_file',
        input: { path: 'a.ts', old_string: '  return 1;', new_string: '  const b = 2;\n  return b;' },
      },
    ],
    stopReason: 'tool_use',
    usage: { input_tokens: 1300, output_tokens: 40 },
  },
  {
    type: 'message',
    blocks: [{ type: 'tool_use', id: 'tu_3', name: 'shell', input: { command: 'cat a.ts; echo checked' } }],
    stopReason: 'tool_use',
    usage: { input_tokens: 1400, output_tokens: 30 },
  },
  {
    type: 'message',
    blocks: [{ type: 'text', text: 'All done.' }],
    usage: { input_tokens: 1500, output_tokens: 20 },
  },
];

const A_TS = 'export function a() {\n  return 1;\n}\n';

function session(replies: FakeReply[], columns: number, rows = 30, args: string[] = []) {
  return skateTerminal({ replies, columns, rows, args, files: { 'a.ts': A_TS } });
}

/** The terminal is back to normal: main screen, echo on, the exit status printed. */
async function expectRestored(s: SkateTerminal, status: number) {
  expect(await s.exited()).toEqual({ status, echo: true, alternateScreen: false });
}

// Sandboxed executors on a loaded two-core machine: more time than the default 30 s.
describe.skipIf(!tmux)('skate interactive UI in a real terminal (tmux)', { timeout: 120_000 }, () => {
  for (const columns of [80, 200]) {
    it(`at ${columns} columns: read, edit and run a command; expanding the edit shows its diff; :q restores the terminal`, async () => {
      await using s = await session(READ_EDIT_RUN, columns);
      const { terminal } = s;
      await terminal.waitFor('INSERT');
      expect(await terminal.alternateScreen()).toBe(true);
      await s.send('fix a.ts');
      let screen = await terminal.waitFor('All done.');
      expect(screen).toContain('› fix a.ts');
      expect(screen).toContain('▸ read_file(a.ts) — lines 1–3 of 3');
      expect(screen).toContain('▸ edit_file(a.ts) — +2 −1');
      expect(screen).toContain('▸ shell(cat a.ts; echo checked) — exit 0');
      // By order of importance: at 80 columns cost and the model stay and the token figures go; 200 has all.
      expect(screen).toMatch(
        columns >= 200
          ? /i:1500\(c:0\) o:20 \| total i:6200 o:170 · \$0\.02/
          : /\[ \$0\.02[^\]]*\] \[ NET: off \] (claude-)?sonnet-4-5/,
      );
      expect(screen).toContain('[ NET: off ]');
      expect(await readFile(path.join(s.workspace, 'a.ts'), 'utf8')).toContain('const b = 2;');

      // NORMAL, focus the edit block (prompt, text, read_file, edit_file: the fourth), expand it.
      await s.normal();
      await terminal.type(']]]]');
      await terminal.waitFor('▌ ▸ edit_file(a.ts)');
      await terminal.keys('Enter');
      screen = await terminal.waitFor('▾ edit_file(a.ts)');
      expect(screen).toMatch(/▌ +- {2}return 1;/);
      expect(screen).toMatch(/▌ +\+ {2}const b = 2;/);
      expect(screen).toMatch(/▌ +\+ {2}return b;/);

      await s.command('q');
      await expectRestored(s, 0);
    });
  }

  it('Ctrl-C mid-tool interrupts the turn and leaves no process behind; Ctrl-C twice then quits', async () => {
    const marker = 'sleep 3131';
    await using s = await session(
      [
        {
          type: 'message',
          blocks: [
            { type: 'tool_use', id: 'tu_1', name: 'shell', input: { command: `${marker}; echo never` } },
          ],
          stopReason: 'tool_use',
          usage: { input_tokens: 100, output_tokens: 10 },
        },
      ],
      100,
    );
    const { terminal } = s;
    await terminal.waitFor('INSERT');
    await s.send('wait a while');
    await terminal.waitFor('running shell');
    expect(await eventually(async () => (await pidsWithMarker(marker)).length > 0, 10_000)).toBe(true);
    await terminal.keys('C-c');
    await terminal.waitFor(/shell\(sleep 3131; echo never\) — (?!running)/);
    expect(await eventually(async () => (await pidsWithMarker(marker)).length === 0, 10_000)).toBe(true);
    await terminal.keys('C-c', 'C-c');
    await expectRestored(s, 0);
  });

  it('an approval rejected with feedback typed on the tool block reaches the model; the file is not touched', async () => {
    await using s = await session(
      [
        {
          type: 'message',
          blocks: [
            {
              type: 'tool_use',
              id: 'tu_1',
              name: 'edit_file',
              input: { path: 'a.ts', old_string: '  return 1;', new_string: '  return 2;' },
            },
          ],
          stopReason: 'tool_use',
          usage: { input_tokens: 100, output_tokens: 10 },
        },
        {
          type: 'message',
          blocks: [{ type: 'text', text: 'Understood.' }],
          usage: { input_tokens: 120, output_tokens: 5 },
        },
      ],
      100,
      40,
      ['--approval', 'ask'],
    );
    const { terminal, api } = s;
    await terminal.waitFor('INSERT');
    await s.send('change a.ts');
    const prompt = await terminal.waitFor('? allow this change: edit_file(a.ts)');
    expect(prompt).toContain('-  return 1;');
    expect(prompt).toContain('+  return 2;');
    await terminal.keys('3');
    await terminal.type('keep it at one');
    await terminal.waitFor('reason for rejecting › keep it at one');
    await terminal.keys('Enter');
    await terminal.waitFor('Understood.');
    expect(JSON.stringify(api.requests[1]?.body?.messages)).toContain('keep it at one');
    expect(await readFile(path.join(s.workspace, 'a.ts'), 'utf8')).toContain('return 1;');
    await s.command('q');
    await expectRestored(s, 0);
  });

  it('ask_user: the options are a list answered by keys, and the answer reaches the model', async () => {
    await using s = await session(
      [
        {
          type: 'message',
          blocks: [
            {
              type: 'tool_use',
              id: 'tu_1',
              name: 'ask_user',
              input: { questions: [{ question: 'Which runtime?', options: ['node', 'deno', 'bun'] }] },
            },
          ],
          stopReason: 'tool_use',
          usage: { input_tokens: 100, output_tokens: 10 },
        },
        {
          type: 'message',
          blocks: [{ type: 'text', text: 'Noted.' }],
          usage: { input_tokens: 120, output_tokens: 5 },
        },
      ],
      100,
    );
    const { terminal, api } = s;
    await terminal.waitFor('INSERT');
    await s.send('set it up');
    await terminal.waitFor('? Which runtime?');
    await terminal.keys('Down', 'Down');
    expect(await terminal.waitFor('❯ 3. bun')).toContain('  1. node');
    await terminal.keys('Up', 'Enter');
    await terminal.waitFor('Noted.');
    const sent = JSON.stringify(api.requests[1]?.body?.messages);
    expect(sent).toContain('Which runtime?');
    expect(sent).toMatch(/A: deno/);
    await s.command('q');
    await expectRestored(s, 0);
  });

  it('Space n turns the network on: a local HTTP server unreachable before is reached after, and NET follows', async () => {
    const server = createServer((_req, res) => res.end('hello from the host'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const probe = (id: string): FakeReply => ({
      type: 'message',
      blocks: [
        {
          type: 'tool_use',
          id,
          name: 'shell',
          input: { command: `curl -s --max-time 3 http://127.0.0.1:${port}/ || echo unreachable-${id}` },
        },
      ],
      stopReason: 'tool_use',
      usage: { input_tokens: 100, output_tokens: 10 },
    });
    const done = (text: string): FakeReply => ({
      type: 'message',
      blocks: [{ type: 'text', text }],
      usage: { input_tokens: 100, output_tokens: 5 },
    });
    try {
      await using s = await session(
        [probe('off'), done('First probe done.'), probe('on'), done('Second probe done.')],
        120,
      );
      const { terminal, api } = s;
      await terminal.waitFor('[ NET: off ]');
      await s.send('probe');
      await terminal.waitFor('First probe done.');
      expect(JSON.stringify(api.requests[1]?.body?.messages)).toContain(
        '"tool_use_id":"off","content":"unreachable-off',
      );

      await s.chord('n');
      await terminal.waitFor('[ NET: on ]', 30_000);
      await s.send('probe again');
      await terminal.waitFor('Second probe done.');
      const second = JSON.stringify(api.requests[3]?.body?.messages);
      // The result of the second call, not just its command line; and the model was told of the change.
      expect(second).toContain('"tool_use_id":"on","content":"hello from the host');
      expect(second).toContain('the network is now on');
      await s.command('q');
      await expectRestored(s, 0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('SIGTERM leaves the terminal restored (main screen, echo on) and exits 143', async () => {
    await using s = await session([], 100);
    const { terminal } = s;
    await terminal.waitFor('INSERT');
    const shell = await terminal.panePid();
    const skate = await s.skatePid();
    expect(skate).toBeDefined();
    process.kill(skate!, 'SIGTERM');
    await expectRestored(s, 143);
    // Nothing of skate's (its executor included) outlives it: only the pane's `sleep 600` is left.
    const leftovers = async (): Promise<string[]> => {
      const lines = await Promise.all((await processDescendants(shell)).map((pid) => commandLine(pid)));
      return lines.filter((line) => line !== '' && !line.startsWith('sleep 600'));
    };
    await eventually(async () => (await leftovers()).length === 0, 5_000);
    expect(await leftovers()).toEqual([]);
  });
});
