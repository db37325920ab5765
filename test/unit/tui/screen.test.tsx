import chalk from 'chalk';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conversationRows, Screen } from '../../../harness/tui/components/screen.js';
import { StatusBar } from '../../../harness/tui/components/status-bar.js';
import { key } from '../../../harness/tui/key-input.js';
import { BlockLineCache } from '../../../harness/tui/render/line-cache.js';
import { createUiReducer, type UiInput } from '../../../harness/tui/ui-reducer.js';
import { initialUiState, type UiState } from '../../../harness/tui/ui-state.js';
import type { EngineEvent } from '../../../shared/engine-events.js';

let level: typeof chalk.level;
beforeEach(() => {
  level = chalk.level;
  chalk.level = 0; // plain text snapshots; the colour tests turn it on themselves
});
afterEach(() => {
  chalk.level = level;
});

const DIFF = [
  '--- src/a.ts',
  '+++ src/a.ts',
  '@@ -1,3 +1,5 @@',
  ' export function a() {',
  '-  return 1;',
  '+  const b = 2;',
  '+  const c = 3;',
  '+  return b + c;',
  ' }',
].join('\n');

const ev = (list: Array<Partial<EngineEvent> & { type: EngineEvent['type'] }>, now = 0): UiInput => ({
  type: 'events',
  events: list.map((event) => ({ agent: [], ...event }) as EngineEvent),
  now,
});

const TOOL_EVENTS = ev(
  [
    { type: 'turn_start', turn: 1 },
    { type: 'text_delta', text: 'I will **fix** it.' },
    {
      type: 'tool_call_start',
      id: 'e1',
      name: 'edit_file',
      args: { path: 'src/a.ts', old_string: 'x', new_string: 'y' },
    },
    {
      type: 'tool_call_result',
      id: 'e1',
      name: 'edit_file',
      output: DIFF,
      isError: false,
      durationMs: 3,
      display: { type: 'diff', path: 'src/a.ts', diff: DIFF, additions: 3, deletions: 1, created: false },
    },
    { type: 'tool_call_start', id: 's1', name: 'shell', args: { command: 'npm test' } },
    {
      type: 'tool_call_result',
      id: 's1',
      name: 'shell',
      output: 'FAIL a.test.ts\n  expected 5\nTests: 1 failed\n',
      isError: false,
      durationMs: 900,
      display: {
        type: 'command',
        command: 'npm test',
        exitCode: 1,
        signal: null,
        durationMs: 900,
        timedOut: false,
        truncated: false,
      },
    },
    { type: 'tool_call_start', id: 'r1', name: 'read_file', args: { path: 'src/a.ts' } },
    {
      type: 'tool_call_result',
      id: 'r1',
      name: 'read_file',
      output: '1\texport function a() {\n2\t  return 1;\n3\t}',
      isError: false,
      durationMs: 1,
      display: { type: 'file', path: 'src/a.ts', startLine: 1, endLine: 3, totalLines: 3, truncated: false },
    },
    { type: 'tool_call_start', id: 'w1', name: 'write_file', args: { path: 'NOTES.md', content: 'hello\n' } },
    {
      type: 'tool_call_result',
      id: 'w1',
      name: 'write_file',
      output: 'created NOTES.md',
      isError: false,
      durationMs: 1,
      display: {
        type: 'diff',
        path: 'NOTES.md',
        diff: '--- /dev/null\n+++ NOTES.md\n@@ -0,0 +1,1 @@\n+hello',
        additions: 1,
        deletions: 0,
        created: true,
      },
    },
  ],
  1000,
);

function setup(
  columns = 80,
  rows = 30,
): { state: UiState; cache: BlockLineCache; step: (input: UiInput) => void } {
  const cache = new BlockLineCache();
  const reduce = createUiReducer(cache.metrics(conversationRows));
  const box = {
    state: initialUiState({ now: 0, columns, rows, model: 'claude-sonnet-4-5', network: 'off' }),
  };
  return {
    cache,
    get state() {
      return box.state;
    },
    step(input: UiInput) {
      box.state = reduce(box.state, input).state;
    },
  };
}

const keyIn = (text: string, extra: Parameters<typeof key>[1] = {}, now = 2000): UiInput => ({
  type: 'key',
  key: key(text, extra),
  now,
});

function frame(state: UiState, cache: BlockLineCache): string {
  const { lastFrame, unmount } = render(<Screen state={state} cache={cache} />);
  const text = lastFrame() ?? '';
  unmount();
  return text;
}

describe('tool blocks', () => {
  it('start collapsed, one line each, with a result summary', () => {
    const ui = setup();
    ui.step(TOOL_EVENTS);
    const screen = frame(ui.state, ui.cache);
    expect(screen).toContain('▸ edit_file(src/a.ts) — +3 −1');
    expect(screen).toContain('▸ shell(npm test) — exit 1 · 3 lines · 900 ms');
    expect(screen).toContain('▸ read_file(src/a.ts) — lines 1–3 of 3');
    expect(screen).toContain('▸ write_file(NOTES.md) — created · +1 −0');
    expect(screen).not.toContain('+  const b = 2;');
    expect(screen).toMatchSnapshot();
  });

  it('expanded show the diff, the command and its output, and numbered lines', () => {
    const ui = setup(80, 50);
    ui.step(TOOL_EVENTS);
    ui.step(keyIn('', { name: 'escape' }));
    for (let i = 0; i < 5; i++) {
      ui.step(keyIn(']'));
      ui.step(keyIn('', { name: 'return' }));
    }
    const screen = frame(ui.state, ui.cache);
    expect(screen).toContain('▾ edit_file(src/a.ts) — +3 −1');
    expect(screen).toMatch(/\+ {2}const b = 2;/);
    expect(screen).toMatch(/- {2}return 1;/);
    expect(screen).toContain('$ npm test');
    expect(screen).toContain('Tests: 1 failed');
    expect(screen).toMatch(/1 export function a\(\) \{/);
    expect(screen).toContain('+hello');
    expect(screen).toMatchSnapshot();
  });

  it('a running call shows its elapsed time, and streamed output when expanded', () => {
    const ui = setup();
    ui.step(ev([{ type: 'tool_call_start', id: 's1', name: 'shell', args: { command: 'make' } }], 1000));
    ui.step(ev([{ type: 'tool_output_line', id: 's1', stream: 'stdout', text: 'compiling…' }], 2000));
    ui.step({ type: 'tick', now: 4200 });
    expect(frame(ui.state, ui.cache)).toMatch(/shell\(make\) — running 3s/);
    ui.step(keyIn('', { name: 'escape' }, 4200));
    ui.step(keyIn(']', {}, 4200));
    ui.step(keyIn('', { name: 'tab' }, 4200));
    expect(frame(ui.state, ui.cache)).toContain('compiling…');
  });

  it('coloured diff lines: additions green, deletions red', () => {
    chalk.level = 1;
    const ui = setup(80, 50);
    ui.step(TOOL_EVENTS);
    ui.step(keyIn('', { name: 'escape' }));
    ui.step(keyIn(']'));
    ui.step(keyIn(']'));
    ui.step(keyIn('', { name: 'return' }));
    const screen = frame(ui.state, ui.cache);
    expect(screen).toContain(`\x1b[32m+  const b = 2;\x1b[39m`);
    expect(screen).toContain(`\x1b[31m-  return 1;\x1b[39m`);
  });
});

describe('status bar', () => {
  const usage = { inputTokens: 434, outputTokens: 567, cacheReadTokens: 800, cacheWriteTokens: 0 };

  function statusFor(patch: Partial<UiState>): string {
    const ui = setup(200, 10);
    ui.step(
      ev([
        { type: 'usage', turn: usage, total: usage, elapsedMs: 1, outputTokensPerSecond: 1 },
        { type: 'context_usage', usedTokens: 76_000, windowTokens: 200_000 },
      ]),
    );
    const { lastFrame, unmount } = render(<StatusBar state={{ ...ui.state, ...patch }} />);
    const text = lastFrame() ?? '';
    unmount();
    return text;
  }

  it('shows mode, activity, turn tokens with cache reads, totals, cost, context, network and model', () => {
    const text = statusFor({});
    expect(text).toMatch(
      /^ INSERT {2}\[ EXECUTE \] \[ i:1234\(c:800\) o:567 \| total i:1234 o:567 · \$0\.01 · ctx 38% \] \[ NET: off \] claude-sonnet-4-5/,
    );
    expect(text).toMatchSnapshot();
    expect(statusFor({ activity: 'plan', mode: 'normal' })).toMatch(/^ NORMAL {2}\[ PLAN \]/);
  });

  it('paints NET on green and off red', () => {
    chalk.level = 1;
    expect(statusFor({ network: 'on' })).toMatch(/\x1b\[32m(\x1b\[1m)? ?\[ NET: on \]/);
    expect(statusFor({ network: 'off' })).toMatch(/\x1b\[31m(\x1b\[1m)? ?\[ NET: off \]/);
  });

  it('says what is running', () => {
    const ui = setup(200, 10);
    ui.step({ type: 'key', key: key('go'), now: 0 });
    ui.step({ type: 'key', key: key('', { name: 'return' }), now: 0 });
    ui.step(
      ev([
        { type: 'turn_start', turn: 1 },
        { type: 'tool_call_start', id: 'c', name: 'shell', args: {} },
      ]),
    );
    expect(frame(ui.state, ui.cache)).toContain('running shell');
  });
});

describe('overlays and questions', () => {
  it('which-key lists every chord once the leader waits 200 ms', () => {
    const ui = setup();
    ui.step(keyIn('', { name: 'escape' }, 0));
    ui.step(keyIn(' ', {}, 0));
    expect(frame(ui.state, ui.cache)).not.toContain('toggle network');
    ui.step({ type: 'tick', now: 250 });
    const screen = frame(ui.state, ui.cache);
    for (const chord of [
      'n  toggle network',
      'p  plan',
      'x  execute',
      'e  edit',
      'a  agent tree',
      'c  clear',
      's  executors',
      '?  toggle',
    ]) {
      expect(screen).toContain(chord);
    }
    expect(screen).toMatchSnapshot();
  });

  it('ask_user shows the question and its options as a list with the selection', () => {
    const ui = setup();
    ui.step(
      ev([
        {
          type: 'ask_user_request',
          requestId: 'q',
          questions: [{ question: 'Which database?', options: ['sqlite', 'postgres'] }],
        },
      ]),
    );
    ui.step(keyIn('j'));
    const screen = frame(ui.state, ui.cache);
    expect(screen).toContain('? Which database?');
    expect(screen).toContain('  1. sqlite');
    expect(screen).toContain('❯ 2. postgres');
    expect(screen).toMatchSnapshot();
  });

  it('an approval shows the change it would allow and the four answers', () => {
    const ui = setup();
    const args = { path: 'src/a.ts', old_string: 'return 1;', new_string: 'return 2;' };
    ui.step(
      ev([
        { type: 'tool_call_start', id: 'e1', name: 'edit_file', args },
        { type: 'approval_request', requestId: 'r', callId: 'e1', name: 'edit_file', args, effect: 'write' },
      ]),
    );
    const screen = frame(ui.state, ui.cache);
    expect(screen).toContain('? allow this change: edit_file(src/a.ts)');
    expect(screen).toContain('-return 1;');
    expect(screen).toContain('+return 2;');
    expect(screen).toContain('❯ 1. approve');
    expect(screen).toContain('3. reject with feedback');
    expect(screen).toContain('4. approve all edit_file calls this session');
    expect(screen).toMatchSnapshot();
    ui.step(keyIn('3'));
    ui.step(keyIn('use a constant'));
    expect(frame(ui.state, ui.cache)).toContain('reason for rejecting › use a constant');
  });

  it('the agent tree is a side panel: each sub-agent with status, task, calls, tokens and time', () => {
    const ui = setup(100, 20);
    ui.step(
      ev([
        { type: 'text_done', text: 'Spawning two helpers.' },
        { type: 'tool_call_start', id: 'p', name: 'spawn_agent', args: { task: 'explore the parser' } },
        { type: 'tool_call_start', id: 'q', name: 'spawn_agent', args: { task: 'implement the fix' } },
        { type: 'turn_start', agent: ['explore-1'], turn: 1, parentCallId: 'p' },
        { type: 'tool_call_start', agent: ['explore-1'], id: 'x', name: 'grep', args: {}, parentCallId: 'p' },
        {
          type: 'usage',
          agent: ['explore-1'],
          turn: { inputTokens: 1200, outputTokens: 34, cacheReadTokens: 0, cacheWriteTokens: 0 },
          total: { inputTokens: 1200, outputTokens: 34, cacheReadTokens: 0, cacheWriteTokens: 0 },
          elapsedMs: 5,
          outputTokensPerSecond: 1,
        },
        { type: 'turn_start', agent: ['impl-2'], turn: 1, parentCallId: 'q' },
      ]),
    );
    ui.step(ev([{ type: 'turn_end', agent: ['impl-2'], turn: 1, reason: 'complete' }], 4000));
    ui.step(keyIn('', { name: 'escape' }));
    ui.step(keyIn(' '));
    ui.step(keyIn('a'));
    ui.step({ type: 'tick', now: 6500 });
    const screen = frame(ui.state, ui.cache);
    const rows = screen.split('\n');
    // The conversation stays on the left; the tree is on the right of the same rows.
    const spawning = rows.find((row) => row.includes('Spawning two helpers.'));
    expect(spawning).toMatch(/Spawning two helpers\. +│/);
    expect(screen).toMatch(/│ main *\n/);
    expect(screen).toMatch(/│ ├─ explore-1 \[running\]/);
    expect(screen).toMatch(/│ │ {2}explore the parser/);
    // Live: a running sub-agent's time is the clock's now (it started at 0); a finished one's stops at its end.
    expect(screen).toMatch(/│ │ {2}1 calls · 1\.2k tok · 6s/);
    expect(screen).toMatch(/│ └─ impl-2 \[done ✓\]/);
    expect(screen).toMatch(/│ {4}implement the fix/);
    expect(screen).toMatch(/│ {4}0 calls · 0 tok · 4s/);
    expect(rows.every((row) => row.length <= 100)).toBe(true);
    expect(screen).toMatchSnapshot();
  });
});

describe('viewport', () => {
  it('renders only the rows that fit and re-wraps on resize', () => {
    const ui = setup(40, 12);
    const long = 'word '.repeat(60).trim();
    ui.step(
      ev([
        { type: 'text_delta', text: long },
        { type: 'text_done', text: long },
      ]),
    );
    const narrow = frame(ui.state, ui.cache).split('\n');
    expect(narrow).toHaveLength(12);
    ui.step({ type: 'resize', columns: 120, rows: 12 });
    const wide = frame(ui.state, ui.cache).split('\n');
    expect(wide).toHaveLength(12);
    const words = (lines: string[]): number =>
      lines
        .join(' ')
        .split(/\s+/)
        .filter((w) => w === 'word').length;
    // Narrow: the text runs past the rows left for it; wide: all 60 words fit.
    expect(words(narrow)).toBeLessThan(60);
    expect(words(wide)).toBe(60);
  });

  it('keeps finished blocks rendered once per width and expansion', () => {
    const ui = setup();
    ui.step(TOOL_EVENTS);
    const block = ui.state.blocks[1]!;
    const first = ui.cache.lines(block, false, 80);
    expect(ui.cache.lines(block, false, 80)).toBe(first);
    expect(ui.cache.lines(block, true, 80)).not.toBe(first);
    expect(ui.cache.lines(block, false, 60)).not.toBe(first);
  });
});
