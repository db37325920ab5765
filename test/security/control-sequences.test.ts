import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import chalk from 'chalk';
import { render } from 'ink-testing-library';
import React from 'react';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { ExecutorRegistry } from '../../harness/runtime/executor-registry.js';
import { conversationRows, Screen } from '../../harness/tui/components/screen.js';
import { BlockLineCache } from '../../harness/tui/render/line-cache.js';
import { createUiReducer } from '../../harness/tui/ui-reducer.js';
import { initialUiState } from '../../harness/tui/ui-state.js';
import type { EngineEvent } from '../../shared/engine-events.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { FAKE_PROMPT, HOSTILE_LINES, HOSTILE_TEXT, INERT_FORMS } from '../support/hostile-sequences.js';
import { runCli } from '../support/run-cli.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux, type TmuxTerminal, tmuxTerminal } from '../support/tmux-terminal.js';

/**
 * Issue #20, item 10: nothing a model, a tool or a file produced reaches a terminal as a control
 * sequence. The real CLI runs in tmux, set up so that the attacks would work (`permissive`: OSC 52
 * becomes a paste buffer, a pane may rename its window), against a fake Messages API whose model
 * sends the hostile corpus (test/support/hostile-sequences.ts) by every road: its own text, a
 * tool's output, a file read with read_file, a tool call's arguments and the error quoting them,
 * an approval preview, an ask_user question and its options, a sub-agent's summary. Asserted on
 * tmux's state: the screen (no fake prompt drawn over a line, the escaped form shown, nothing
 * cleared), the paste buffers, the pane title and the window name.
 */
const tmux = await hasTmux();

/** A path for a tool call's arguments: it does not exist, so the error quotes it too. */
const HOSTILE_PATH = 'missing\x1b]0;PWNED-ARGS\x07\u202edir';
const HOSTILE_TASK = 'summarise hostile.txt \x1b]2;PWNED-TASK\x1b\\';
const QUESTION = `Which line matters?\n${HOSTILE_LINES.slice(0, 3).join('\n')}`;
const OPTIONS = [HOSTILE_LINES[0]!, HOSTILE_LINES.find((line) => line.startsWith('CR overwrite'))!];

/** The model's turns: every road the corpus can take to a terminal, one after the other. */
function replies(): FakeReply[] {
  return [
    {
      type: 'message',
      blocks: [
        { type: 'text', text: `Here is what I found.\n\n${HOSTILE_TEXT}` },
        { type: 'tool_use', id: 'tu_cat', name: 'shell', input: { command: 'cat hostile.txt' } },
        { type: 'tool_use', id: 'tu_read', name: 'read_file', input: { path: 'hostile.txt' } },
        { type: 'tool_use', id: 'tu_list', name: 'list_dir', input: { path: HOSTILE_PATH } },
      ],
      stopReason: 'tool_use',
    },
    {
      type: 'message',
      // The whole corpus as a command: the approval preview shows it; the person rejects it.
      blocks: [{ type: 'tool_use', id: 'tu_evil', name: 'shell', input: { command: HOSTILE_TEXT } }],
      stopReason: 'tool_use',
    },
    {
      type: 'message',
      blocks: [
        {
          type: 'tool_use',
          id: 'tu_ask',
          name: 'ask_user',
          input: { questions: [{ question: QUESTION, options: OPTIONS }] },
        },
      ],
      stopReason: 'tool_use',
    },
    {
      type: 'message',
      blocks: [{ type: 'tool_use', id: 'tu_spawn', name: 'spawn_agent', input: { task: HOSTILE_TASK } }],
      stopReason: 'tool_use',
    },
    // The sub-agent's one turn.
    {
      type: 'message',
      blocks: [
        {
          type: 'tool_use',
          id: 'tu_done',
          name: 'complete_task',
          input: {
            status: 'completed',
            summary: HOSTILE_TEXT,
            files_changed: [],
            tests_run: [],
            follow_ups: [],
          },
        },
      ],
      stopReason: 'tool_use',
    },
    { type: 'message', blocks: [{ type: 'text', text: 'All done.' }] },
  ];
}

/**
 * What no screen may show: a fake prompt drawn over a line. It shows only right after its ␍ (or,
 * in a JSON text, its `\r` escape).
 */
function expectNoFakePrompt(screen: string): void {
  expect(screen).not.toMatch(new RegExp(`(?<!␍|\\\\r)${escapeRegExp(FAKE_PROMPT.slice(0, 11))}`));
}

/** The host's state after everything was shown: no clipboard write, no title, no window name. */
async function expectTerminalUntouched(terminal: TmuxTerminal, title: string): Promise<void> {
  expect(await terminal.buffers()).toEqual([]);
  expect(await terminal.format('#{pane_title}')).toBe(title);
  expect(await terminal.format('#{window_name}')).not.toContain('PWNED');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe.skipIf(!tmux)('control sequences reach no terminal (tmux)', { timeout: 240_000 }, () => {
  for (const columns of [80, 200]) {
    it(`the terminal UI at ${columns} columns: the reply, approvals, ask_user, and every block expanded`, async () => {
      await using s = await skateTerminal({
        replies: replies(),
        columns,
        rows: 50,
        args: ['--approval', 'ask'],
        files: { 'hostile.txt': HOSTILE_TEXT },
        permissive: true,
      });
      const { terminal } = s;
      await terminal.waitFor('INSERT');
      const title = await terminal.format('#{pane_title}');
      await s.send('look at hostile.txt');

      // The model's text streamed above its calls; the first approval is the harmless cat.
      let screen = await terminal.waitFor('? allow this command: shell(cat hostile.txt)');
      expectNoFakePrompt(screen);
      expect(screen).toContain(INERT_FORMS.clipboard);
      await terminal.keys('y');

      // The corpus as a command: its preview shows every line inert, the question is Skate's own.
      screen = await terminal.waitFor(/\? allow this command: shell\(OSC 52 clipboard/);
      expectNoFakePrompt(screen);
      for (const form of [INERT_FORMS.clipboard, INERT_FORMS.title, INERT_FORMS.clear]) {
        expect(screen).toContain(form);
      }
      expect(screen).toContain(INERT_FORMS.carriageReturn);
      expect(screen).toMatch(/❯ 1\. approve/);
      await terminal.keys('n');

      screen = await terminal.waitFor('? Which line matters?');
      expectNoFakePrompt(screen);
      expect(screen).toContain(INERT_FORMS.clipboard);
      expect(screen).toContain(
        `2. ${INERT_FORMS.carriageReturn.replace('checking', 'CR overwrite: checking')}`,
      );
      await terminal.keys('1');

      screen = await terminal.waitFor(
        /\? allow this \w+: spawn_agent\(summarise hostile\.txt ␛\]2;PWNED-TASK␛\\\)/,
      );
      await terminal.keys('y');
      screen = await terminal.waitFor('All done.');
      expectNoFakePrompt(screen);
      expect(screen).toContain(`list_dir(missing␛]0;PWNED-ARGS␇<U+202E>dir)`);

      // Every block expanded in turn: each shows the corpus inert and the screen around it intact.
      await s.normal();
      const expanded = async (label: string): Promise<string> => {
        const focused = new RegExp(`▌ [▸▾] ${escapeRegExp(label)}`);
        for (let i = 0; i < 12 && !focused.test(await terminal.screen()); i++) await terminal.keys(']');
        await terminal.waitFor(focused);
        await terminal.keys('Enter');
        const shown = await terminal.waitFor(new RegExp(`▌ ▾ ${escapeRegExp(label)}`));
        // Skate's own rows are still there: nothing cleared or scrolled them away.
        expect(shown).toMatch(/^ NORMAL /m);
        expect(shown).toMatch(/^─+$/m);
        expectNoFakePrompt(shown);
        return shown;
      };
      const collapse = () => terminal.keys('Enter');

      screen = await expanded('shell(cat hostile.txt)');
      for (const form of Object.values(INERT_FORMS)) expect(screen).toContain(form);
      await collapse();
      screen = await expanded('read_file(hostile.txt)');
      for (const form of Object.values(INERT_FORMS)) expect(screen).toContain(form);
      expect(screen).toMatch(/▌ +24 unterminated OSC 52: ␛\]52;c;/);
      await collapse();
      screen = await expanded('list_dir(missing␛]0;PWNED-ARGS␇');
      expect(screen).toContain('"path": "missing␛]0;PWNED-ARGS␇<U+202E>dir"');
      await collapse();
      screen = await expanded('shell(OSC 52 clipboard');
      expect(screen).toContain(`$ ${HOSTILE_LINES[0]!.slice(0, 20)}`);
      expect(screen).toContain(INERT_FORMS.carriageReturn);
      await collapse();
      screen = await expanded('spawn_agent(summarise hostile.txt');
      // The sub-agent's result is JSON: its summary's ESC is the text `\u001b`, its C1 shown inert.
      expect(screen).toContain('<U+009B>2J');
      expect(screen).toContain('\\u001b]52;c;');
      await collapse();
      // The conversation printed into the terminal's scrollback (:scrollback; the reply holds the
      // whole corpus): inert there too.
      await s.command('scrollback');
      screen = await terminal.waitFor('any key goes back to skate');
      expect(await terminal.alternateScreen()).toBe(false);
      const history = await terminal.history();
      // Every form but the CR one, whose fake prompt's backticks the reply renders as Markdown code.
      const { carriageReturn: _markdown, ...forms } = INERT_FORMS;
      for (const form of Object.values(forms)) expect(history).toContain(form);
      expect(history).toContain('checking the files...␍Allow shell');
      expectNoFakePrompt(screen);
      await terminal.keys('Escape');
      await terminal.waitFor(/^ NORMAL /m);
      await s.command('q');
      expect((await s.exited()).status).toBe(0);
      await expectTerminalUntouched(terminal, title);
    });
  }

  for (const columns of [80, 200]) {
    it(`skate -p --output-format text at ${columns} columns, asking on the terminal: text, results, prompts, summary`, async () => {
      await using ws = await hostDir('control-sequences-');
      await writeFile(`${ws.path}/hostile.txt`, HOSTILE_TEXT);
      await using api = await fakeMessagesApi(replies());
      const command = [
        process.execPath,
        distPath('cli', 'skate.js'),
        '-p',
        'look at hostile.txt',
        '--output-format',
        'text',
        '--approval',
        'ask',
        '--workspace',
        ws.path,
      ]
        .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
        .join(' ');
      // Tall enough that the whole run stays on the screen: a clear would show as missing lines.
      await using terminal = await tmuxTerminal({
        command: `${command}; echo "[exit $?]"; sleep 600`,
        env: { ...inheritedEnv(), ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: api.url },
        columns,
        rows: 150,
        permissive: true,
      });
      const title = await terminal.format('#{pane_title}');

      let screen = await terminal.waitFor(/allow shell\?\n {2}\$ cat hostile\.txt\n\[y\/N or a reason\]$/m);
      expectNoFakePrompt(screen);
      expect(screen).toContain(INERT_FORMS.clipboard);
      await terminal.type('y\r');

      screen = await terminal.waitFor(/allow shell\?\n {2}\$ OSC 52 clipboard/);
      await sleep(300);
      screen = await terminal.screen();
      expectNoFakePrompt(screen);
      expect(screen).toContain(`$ ${HOSTILE_LINES[0]!.replace(/\x1b/g, '␛').replace(/\x07/g, '␇')}`);
      expect(screen).toContain(INERT_FORMS.carriageReturn);
      await terminal.type('n\r');

      screen = await terminal.waitFor('Which line matters?');
      await sleep(300);
      screen = await terminal.screen();
      expectNoFakePrompt(screen);
      expect(screen).toContain(INERT_FORMS.title);
      expect(screen).toContain(INERT_FORMS.carriageReturn);
      await terminal.type('the first\r');

      await terminal.waitFor(/allow spawn_agent\?/);
      await terminal.type('y\r');
      screen = await terminal.waitFor(/\[exit \d+\]/, 60_000);
      expect(screen).toContain('[exit 0]');
      expectNoFakePrompt(screen);
      // Nothing was cleared: the first line of the run is still on the screen, above everything.
      expect(screen).toMatch(/^skate: policy execute/m);
      // The model's text, a command's last lines, a call's arguments, the sub-agent's summary.
      for (const form of Object.values(INERT_FORMS)) expect(screen).toContain(form);
      expect(screen).toContain('▸ list_dir missing␛]0;PWNED-ARGS␇<U+202E>dir');
      expect(screen).toMatch(
        /↳ (spawn_agent: )?completed · \d+ tool calls? · [\d.k]+ tokens[^\n]*\n\s+OSC 52 clipboard \(BEL\): ␛\]52;c;/,
      );
      expect(screen).toContain('All done.');
      await expectTerminalUntouched(terminal, title);
    });
  }
});

/** What a terminal could act on or that hides text, raw (tab and newline aside). */
const ACTIVE =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/;

describe('what skate prints as JSON and for reading later', {
  timeout: 120_000,
}, () => {
  it('stream-json: to a terminal, C1 and bidi controls escaped; to a program, the bytes JSON.stringify makes', async () => {
    await using ws = await hostDir('control-sequences-json-');
    await writeFile(`${ws.path}/hostile.txt`, HOSTILE_TEXT);
    const turns = (): FakeReply[] => [
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'tu_cat', name: 'shell', input: { command: 'cat hostile.txt' } }],
        stopReason: 'tool_use',
      },
      { type: 'message', blocks: [{ type: 'text', text: HOSTILE_TEXT }] },
    ];
    const args = ['-p', 'look', '--output-format', 'stream-json', '--no-session', '--workspace', ws.path];

    // A person watching stream-json: JSON escaped C0 already; C1 and bidi show as escapes too.
    await using shownApi = await fakeMessagesApi(turns());
    const command = [process.execPath, distPath('cli', 'skate.js'), ...args]
      .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
      .join(' ');
    await using terminal = await tmuxTerminal({
      command: `${command}; echo "[exit $?]"; sleep 600`,
      env: { ...inheritedEnv(), ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: shownApi.url },
      columns: 200,
      rows: 80,
      permissive: true,
    });
    const title = await terminal.format('#{pane_title}');
    const screen = await terminal.waitFor(/\[exit \d+\]/, 60_000);
    expect(screen).toContain('[exit 0]');
    expect(screen).toContain('C1 CSI (U+009B): \\u009b2J');
    expect(screen).toContain('file: \\u202etxt.exe\\u202c');
    await expectTerminalUntouched(terminal, title);

    // A program reading it: JSON.stringify's own bytes, the model's text and the output exact.
    await using readApi = await fakeMessagesApi(turns());
    const run = await runCli(args, {
      env: { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: readApi.url },
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    for (const line of lines) expect(line).toBe(JSON.stringify(JSON.parse(line)));
    const events = lines.map((line) => JSON.parse(line));
    expect(events.at(-1).finalMessage).toBe(HOSTILE_TEXT);
    const cat = events.find((event) => event.type === 'tool_call_result' && event.id === 'tu_cat');
    expect(cat.output.startsWith(HOSTILE_TEXT)).toBe(true);
  });

  it('skate sessions list and show print titles, replies and outputs inert; --json keeps them exact', async () => {
    await using ws = await hostDir('control-sequences-sessions-');
    await writeFile(`${ws.path}/hostile.txt`, HOSTILE_TEXT);
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'tu_cat', name: 'shell', input: { command: 'cat hostile.txt' } }],
        stopReason: 'tool_use',
      },
      { type: 'message', blocks: [{ type: 'text', text: HOSTILE_TEXT }] },
    ]);
    const env = { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: api.url };
    // The prompt is the session's title: a pasted one can carry sequences too.
    const prompt = `look \x1b]0;PWNED-PROMPT\x07 at \u202ethis`;
    const run = await runCli(['-p', prompt, '--workspace', ws.path], { env, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(ACTIVE);
    expect(run.stderr).not.toMatch(ACTIVE);

    const list = await runCli(['sessions', 'list', '--workspace', ws.path], { env });
    expect(list.stdout).not.toMatch(ACTIVE);
    expect(list.stdout).toContain('look ␛]0;PWNED-PROMPT␇ at <U+202E>this');
    const id = /^(\S+)\s/m.exec(list.stdout.split('\n')[1] ?? '')?.[1];
    expect(id).toBeDefined();
    const show = await runCli(['sessions', 'show', id!, '--workspace', ws.path], { env });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(ACTIVE);
    expect(show.stdout).toContain(INERT_FORMS.clipboard);
    // --json is for programs: JSON.stringify's own bytes, the texts exact.
    const json = await runCli(['sessions', 'show', id!, '--json', '--workspace', ws.path], { env });
    expect(json.stdout).toBe(`${JSON.stringify(JSON.parse(json.stdout), null, 2)}\n`);
    expect(json.stdout).toContain(JSON.stringify(HOSTILE_TEXT).slice(1, -1));
  });
});

function inheritedEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/**
 * #24: the executor panel and the conversation show what a sandbox sent the network proxy (a
 * CONNECT's host, the command running) and what it is called (an MCP server's name). Fed through
 * the runtime's registry and the UI's reducer to the real screen component, the whole corpus as
 * host, command and server name comes out with no sequence but Skate's own colours. (Node's HTTP
 * parser already drops a CONNECT whose target holds control bytes, so this is the layer behind it.)
 */
describe('a hostile host in a network denial, as the terminal UI draws it', () => {
  it('reaches the frame inert: in the executor panel and in the conversation', async () => {
    const level = chalk.level;
    chalk.level = 3;
    try {
      const registry = new ExecutorRegistry(() => 1_000);
      const slot = registry.add({
        role: 'mcp',
        name: HOSTILE_LINES[0]!,
        pid: 7,
        state: 'ready',
        policy: undefined,
      });
      const events: EngineEvent[] = HOSTILE_LINES.map((line) => ({
        type: 'network_denied',
        agent: [],
        host: line,
        port: 443,
        reason: 'invalid_host',
        at: '',
        command: HOSTILE_TEXT,
      }));
      for (const event of events) slot.observe(event, () => true);
      const reduce = createUiReducer(new BlockLineCache().metrics(conversationRows));
      let state = initialUiState({ now: 2_000, columns: 200, rows: 60, model: 'm', network: '1 host' });
      for (const input of [
        { type: 'events', events, now: 2_000 },
        { type: 'executors', rows: registry.rows() },
        { type: 'overlay', overlay: { type: 'executors', top: 0 } },
      ] as const)
        state = reduce(state, input as never).state;
      const { lastFrame, unmount } = render(
        React.createElement(Screen, { state, cache: new BlockLineCache() }),
      );
      const frame = lastFrame() ?? '';
      unmount();
      // Colours (SGR) are Skate's; no other escape, no BEL, no C1, no bidi control reaches the terminal.
      expect(frame.replace(/\x1b\[[0-9;]*m/g, '')).not.toMatch(
        /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/,
      );
      const plain = frame.replace(/\x1b\[[0-9;]*m/g, '');
      expect(plain).toContain('┌ executors');
      expect(plain).toContain(`mcp ${HOSTILE_LINES[0]!.slice(0, 20)}`);
      expect(plain).toContain('✗ net DEL: a␡b:443 refused (not a host name)');
      expect(plain).toContain('✗ net unterminated OSC 52: ␛]52;c;');
      expect(plain).toContain(`network: refused C1 CSI (U+009B): ${INERT_FORMS.c1}:443`);
    } finally {
      chalk.level = level;
    }
  });
});
