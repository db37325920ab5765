import chalk from 'chalk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SUB_AGENT_KICKOFF } from '../../../harness/agents/sub-agent-prompt.js';
import { applyEngineEvents } from '../../../harness/tui/apply-engine-events.js';
import { historyEvents } from '../../../harness/tui/history-events.js';
import { key } from '../../../harness/tui/key-input.js';
import { promptLines } from '../../../harness/tui/render/chrome-lines.js';
import { statusLayout, statusSegments } from '../../../harness/tui/render/status-line.js';
import { resultSummary } from '../../../harness/tui/render/tool-summary.js';
import { welcomeLines } from '../../../harness/tui/render/welcome-lines.js';
import { replayLoaded } from '../../../harness/tui/replay-view.js';
import { parseUiCommand } from '../../../harness/tui/ui-command.js';
import { createUiReducer, type UiInput } from '../../../harness/tui/ui-reducer.js';
import { type Block, initialUiState, type ToolBlock, type UiState } from '../../../harness/tui/ui-state.js';
import type { ViewMetrics } from '../../../harness/tui/view-metrics.js';
import type { Message } from '../../../shared/conversation.js';
import type { EngineEvent } from '../../../shared/engine-events.js';

let level: typeof chalk.level;
beforeEach(() => {
  level = chalk.level;
  chalk.level = 0;
});
afterEach(() => {
  chalk.level = level;
});

const metrics: ViewMetrics = {
  blockHeight: (_block: Block, expanded: boolean) => (expanded ? 10 : 1),
  conversationRows: (state: UiState) => state.size.rows - 2,
};
const reduce = createUiReducer(metrics);
const start = (columns = 80): UiState =>
  initialUiState({
    now: 0,
    columns,
    rows: 30,
    model: 'claude-sonnet-4-5',
    network: 'off',
    about: { workspace: '/home/me/app', policy: 'execute' },
  });
const events = (list: Array<Partial<EngineEvent> & { type: EngineEvent['type'] }>, now = 0): UiInput => ({
  type: 'events',
  events: list.map((event) => ({ agent: [], ...event }) as EngineEvent),
  now,
});
const press = (text: string, now = 0): UiInput => ({ type: 'key', key: key(text), now });
const named = (name: 'escape' | 'return', now = 0): UiInput => ({ type: 'key', key: key('', { name }), now });
function run(state: UiState, inputs: UiInput[]): { state: UiState; effects: unknown[] } {
  const effects: unknown[] = [];
  for (const input of inputs) {
    const step = reduce(state, input);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

const READ_DISPLAY = {
  type: 'file' as const,
  path: 'index.js',
  startLine: 1,
  endLine: 162,
  totalLines: 162,
  truncated: false,
};
const EDIT_DISPLAY = {
  type: 'diff' as const,
  path: 'index.js',
  diff: '-a\n+b',
  additions: 1,
  deletions: 1,
  created: false,
};
const SHELL_DISPLAY = {
  type: 'command' as const,
  command: 'npm test',
  exitCode: 0,
  signal: null,
  durationMs: 400,
  timedOut: false,
  truncated: false,
};
const SUB_AGENT_OUTPUT = JSON.stringify({
  agent_id: 'agent-1',
  usage: {
    turns: 1,
    tool_calls: 1,
    input_tokens: 1500,
    output_tokens: 400,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    duration_ms: 300,
  },
  result: { status: 'completed', summary: 'Constants are fine.' },
});

/** A conversation as the session log keeps it: each tool_result with the display the call showed. */
const LOGGED: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'fix it' }] },
  {
    role: 'assistant',
    content: [
      { type: 'tool_use', id: 'r', name: 'read_file', input: { path: 'index.js' } },
      { type: 'tool_use', id: 'e', name: 'edit_file', input: { path: 'index.js' } },
      { type: 'tool_use', id: 's', name: 'shell', input: { command: 'npm test' } },
      { type: 'tool_use', id: 'a', name: 'spawn_agent', input: { task: 'Review constants' } },
      {
        type: 'tool_use',
        id: 'q',
        name: 'ask_user',
        input: { questions: [{ question: 'Should I also add a unit test?', options: ['Yes', 'No'] }] },
      },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', callId: 'r', output: '     1\t/**\n', isError: false, display: READ_DISPLAY },
      {
        type: 'tool_result',
        callId: 'e',
        output: 'edited index.js (+1 -1)',
        isError: false,
        display: EDIT_DISPLAY,
      },
      {
        type: 'tool_result',
        callId: 's',
        output: 'ok 1\nok 2\nok 3\nok 4\nok 5\nok 6\n[exit code 0]',
        isError: false,
        display: SHELL_DISPLAY,
      },
      { type: 'tool_result', callId: 'a', output: SUB_AGENT_OUTPUT, isError: false },
      {
        type: 'tool_result',
        callId: 'q',
        output: 'The user answered:\n\nQ: Should I also add a unit test?\nA: Yes',
        isError: false,
      },
    ],
  },
];

/** Every tool block's collapsed line as `name — summary`. */
function summaries(state: UiState): string[] {
  return state.blocks
    .filter((block): block is ToolBlock => block.kind === 'tool')
    .map((block) => `${block.name} — ${resultSummary(block)}`);
}

describe('one summary, live or from the log (#24 items 1 and 4)', () => {
  const expected = [
    'read_file — lines 1–162 of 162',
    'edit_file — +1 −1',
    'shell — exit 0 · 6 lines · 400 ms',
    'spawn_agent — completed · 1 tool call · 1.9k tokens · 300 ms',
    'ask_user — answered: Yes',
  ];

  it('a resumed session reads as the live one did, in words, never as JSON', () => {
    const resumed = applyEngineEvents(start(), historyEvents(LOGGED), 0);
    expect(summaries(resumed)).toEqual(expected);
  });

  it('live events give the same lines', () => {
    const results = LOGGED[2]!.content;
    const calls = LOGGED[1]!.content;
    const live: Array<Partial<EngineEvent> & { type: EngineEvent['type'] }> = [];
    calls.forEach((call, i) => {
      const result = results[i]!;
      if (call.type !== 'tool_use' || result.type !== 'tool_result') throw new Error('fixture');
      live.push(
        { type: 'tool_call_start', id: call.id, name: call.name, args: call.input },
        {
          type: 'tool_call_result',
          id: call.id,
          name: call.name,
          output: result.output,
          isError: false,
          durationMs: 5,
          ...(result.display && { display: result.display }),
        },
      );
    });
    expect(summaries(run(start(), [events(live)]).state)).toEqual(expected);
  });

  it('a replayed sub-agent starts with its real task, not the generic kickoff', () => {
    const state: UiState = {
      ...start(),
      agents: {
        'agent-1': {
          path: 'agent-1',
          task: 'Review constants',
          status: 'done',
          startedAt: 0,
          toolCalls: 1,
          tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        },
      },
      replay: {
        agent: 'agent-1',
        loading: true,
        view: { blocks: [], nextId: 1, expanded: new Set(), scroll: { follow: true } },
      },
    };
    const conversation: Message[] = [
      { role: 'user', content: [{ type: 'text', text: SUB_AGENT_KICKOFF }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }] },
    ];
    const replay = replayLoaded(state, { agent: 'agent-1', conversation }, 0).replay!;
    expect(replay.view.blocks[0]).toMatchObject({ kind: 'user', text: 'Review constants' });
  });
});

describe('keys that keep work (#24 items 2, 7)', () => {
  it('Esc with an approval waiting leaves INSERT and keeps the approval', () => {
    const ask = events([
      { type: 'tool_call_start', id: 'c', name: 'spawn_agent', args: { task: 'x' } },
      {
        type: 'approval_request',
        requestId: 'r',
        callId: 'c',
        name: 'spawn_agent',
        args: {},
        effect: 'execute',
      },
    ]);
    const { state, effects } = run(start(), [ask, named('escape'), named('escape')]);
    expect(effects).toEqual([]);
    expect(state.pending).toHaveLength(1);
    expect(state.mode).toBe('normal');
    expect(run(state, [press('y')]).effects).toEqual([
      { type: 'answer', command: { type: 'approval_response', requestId: 'r', decision: 'approve' } },
    ]);
  });
});

describe('transient labels end with their cause (#24 item 3)', () => {
  it('"interrupting…" lasts until the run ends, and the conversation says "interrupted"', () => {
    let state = run(start(), [press('go'), named('return')]).state;
    state = run(state, [
      events([{ type: 'turn_start', turn: 1 }]),
      { type: 'key', key: key('c', { ctrl: true }), now: 1 },
    ]).state;
    expect(statusSegments(state).doing).toBe('interrupting…');
    state = run(state, [events([{ type: 'turn_end', turn: 1, reason: 'cancelled' }], 2)]).state;
    state = reduce(state, { type: 'run_finished', now: 3 }).state;
    expect(statusSegments(state).doing).toBe('');
    expect(state.blocks.at(-1)).toMatchObject({ kind: 'notice', level: 'interrupted', text: 'interrupted' });
  });

  it('a busy label (restarting the executor) shows exactly while the work runs', () => {
    let state = reduce(start(), { type: 'busy', text: 'network on: restarting the executor…', now: 0 }).state;
    expect(statusSegments(state).doing).toBe('network on: restarting the executor…');
    state = reduce(state, { type: 'busy', now: 60_000 }).state;
    expect(statusSegments(state).doing).toBe('');
  });
});

describe('status bar by order of importance (#24 item 6)', () => {
  const busy = (columns: number): UiState => ({
    ...start(columns),
    running: true,
    usage: {
      turn: { inputTokens: 5000, outputTokens: 30, cacheReadTokens: 2400, cacheWriteTokens: 0 },
      total: { inputTokens: 17_850, outputTokens: 224, cacheReadTokens: 0, cacheWriteTokens: 0 },
      costUsd: 0.03,
      context: { usedTokens: 6000, windowTokens: 200_000 },
    },
    blocks: [
      {
        kind: 'tool',
        id: 't',
        callId: 'c',
        name: 'shell',
        args: {},
        startedAt: 0,
        status: 'running',
        streamed: [],
        streamedCount: 0,
      },
    ],
  });
  const bar = (columns: number): string =>
    statusLayout(statusSegments(busy(columns)), columns)
      .map((part) => part.text)
      .join('');

  it('at 80 columns keeps the activity, cost, context and the model (shortened)', () => {
    const line = bar(80);
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line).toContain('running shell');
    expect(line).toContain('$0.03');
    expect(line).toContain('ctx 3%');
    expect(line).toContain('[ NET: off ]');
    expect(line).toMatch(/ sonnet-4-5$/);
  });

  it('at 120 an activity never cuts the model, and 200 shows everything', () => {
    expect(bar(120)).toContain('claude-sonnet-4-5');
    expect(bar(120)).toContain('running shell');
    const wide = bar(200);
    for (const part of ['i:7400(c:2400) o:30', 'total i:17850 o:224', '$0.03', 'ctx 3%', 'claude-sonnet-4-5'])
      expect(wide).toContain(part);
  });

  it('a long message is shortened with an ellipsis, never the badges', () => {
    const state = { ...busy(80), flash: { text: 'x'.repeat(300), until: 10 } };
    const line = statusLayout(statusSegments(state), 80)
      .map((part) => part.text)
      .join('');
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line).toContain('…');
    expect(line).toContain('[ NET: off ]');
    expect(line).toContain('EXECUTE');
  });
});

describe('first screen, :model, prompts, overlays (#24 items 8, 9)', () => {
  it('the first screen names workspace, model, policy, approval (and why), network, and tips', () => {
    for (const columns of [80, 200]) {
      const lines = welcomeLines(start(columns), columns - 2).join('\n');
      expect(lines).toContain('/home/me/app');
      expect(lines).toContain('claude-sonnet-4-5');
      expect(lines).toContain('execute');
      expect(lines).toContain('auto: tools run without asking; the sandbox is the gate');
      expect(lines).toContain('Space m');
      expect(lines).toContain('network   off');
      expect(lines).toContain(':help');
      for (const line of lines.split('\n')) expect(line.length).toBeLessThanOrEqual(columns - 2);
    }
  });

  it('Space m walks the approval modes', () => {
    const { effects } = run({ ...start(), mode: 'normal' }, [press(' '), press('m')]);
    expect(effects.at(-1)).toEqual({
      type: 'command',
      command: { type: 'backend', command: { type: 'set_approval', approval: 'ask' } },
    });
  });

  it(':model refuses a name the catalog does not list', () => {
    const parsed = parseUiCommand('model gpt-4');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(/^no model gpt-4 in the catalog; known: claude-/);
  });

  it('a free-text question shows one › prompt, not two', () => {
    const state = run(start(), [
      events([{ type: 'ask_user_request', requestId: 'q', questions: [{ question: 'Why?' }] }]),
    ]).state;
    expect(promptLines(state, 80)).toEqual([]);
  });

  it('a long message overlay scrolls with j/k and closes on another key', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`);
    let state = reduce(
      { ...start(), mode: 'normal' },
      { type: 'overlay', overlay: { type: 'message', title: 'policy', lines } },
    ).state;
    state = run(state, [press('j'), press('j'), press('G')]).state;
    expect(state.overlay).toMatchObject({ type: 'message', top: 60 - (30 - 8 - 3) });
    state = run(state, [press('k')]).state;
    expect(state.overlay).toMatchObject({ top: 60 - (30 - 8 - 3) - 1 });
    expect(run(state, [press('x')]).state.overlay).toBeUndefined();
  });
});
