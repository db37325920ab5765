import { describe, expect, it } from 'vitest';
import { key } from '../../../harness/tui/key-input.js';
import { parseUiCommand, slashCommand } from '../../../harness/tui/ui-command.js';
import { createUiReducer, type UiInput, whichKeyVisible } from '../../../harness/tui/ui-reducer.js';
import { type Block, initialUiState, type UiState } from '../../../harness/tui/ui-state.js';
import type { ViewMetrics } from '../../../harness/tui/view-metrics.js';
import type { EngineEvent } from '../../../shared/engine-events.js';

/** One row per collapsed block, ten when expanded; the conversation gets the terminal's rows minus two. */
const metrics: ViewMetrics = {
  blockHeight: (_block: Block, expanded: boolean) => (expanded ? 10 : 1),
  conversationRows: (state: UiState) => state.size.rows - 2,
};
const reduce = createUiReducer(metrics);

function start(overrides: Partial<UiState> = {}): UiState {
  return { ...initialUiState({ now: 0, columns: 80, rows: 12, model: 'claude-sonnet-4-5' }), ...overrides };
}

/** Runs inputs in order, collecting every effect. */
function run(
  state: UiState,
  inputs: UiInput[],
): { state: UiState; effects: ReturnType<typeof reduce>['effects'] } {
  const effects: ReturnType<typeof reduce>['effects'] = [];
  for (const input of inputs) {
    const step = reduce(state, input);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

const press = (text: string, now = 0, extra: Parameters<typeof key>[1] = {}): UiInput => ({
  type: 'key',
  key: key(text, extra),
  now,
});
const named = (name: NonNullable<Parameters<typeof key>[1]>['name'], now = 0, extra = {}): UiInput => ({
  type: 'key',
  key: key('', { name, ...extra }),
  now,
});
const events = (list: Array<Partial<EngineEvent> & { type: EngineEvent['type'] }>, now = 0): UiInput => ({
  type: 'events',
  events: list.map((event) => ({ agent: [], ...event }) as EngineEvent),
  now,
});

function normalWithBlocks(count: number): UiState {
  const state = run(start(), [
    events(
      Array.from({ length: count }, (_, i) => ({
        type: 'tool_call_start' as const,
        id: `c${i}`,
        name: 'shell',
        args: {},
      })),
    ),
    named('escape'),
  ]).state;
  expect(state.mode).toBe('normal');
  return state;
}

describe('leader key', () => {
  it('shows which-key only after the delay, and keeps the leader until a key or Esc however long the pause', () => {
    let state = normalWithBlocks(1);
    const step = reduce(state, press(' ', 1000));
    expect(step.effects).toEqual([{ type: 'wake', at: 1200 }]);
    state = step.state;
    expect(whichKeyVisible(state)).toBe(false);
    state = reduce(state, { type: 'tick', now: 1199 }).state;
    expect(whichKeyVisible(state)).toBe(false);
    state = reduce(state, { type: 'tick', now: 1200 }).state;
    expect(whichKeyVisible(state)).toBe(true);
    // Read for a minute: the leader and its list are still there, and `a` is the chord, not INSERT.
    state = reduce(state, { type: 'tick', now: 61_000 }).state;
    expect(whichKeyVisible(state)).toBe(true);
    const chord = reduce(state, press('a', 61_001));
    expect(chord.state.overlay).toEqual({ type: 'agent_tree', selected: 0 });
    expect(chord.state.mode).toBe('normal');
    // Esc cancels a leader, whenever.
    const cancelled = reduce(reduce(normalWithBlocks(1), press(' ', 0)).state, named('escape', 90_000));
    expect(cancelled.state.leader).toBeUndefined();
    expect(reduce(cancelled.state, press('n', 90_001)).effects).toEqual([]);
  });

  it('runs the chord that matches the second key', () => {
    const { state, effects } = run(normalWithBlocks(1), [press(' ', 10), press('n', 50)]);
    expect(effects.filter((e) => e.type === 'command')).toEqual([
      { type: 'command', command: { type: 'toggle_network' } },
    ]);
    expect(state.leader).toBeUndefined();
    const plan = run(normalWithBlocks(1), [press(' '), press('p')]).effects.at(-1);
    expect(plan).toEqual({
      type: 'command',
      command: { type: 'backend', command: { type: 'set_activity', activity: 'plan' } },
    });
  });

  it('cancels on an unbound key with a short message and no command', () => {
    const { state, effects } = run(normalWithBlocks(1), [press(' ', 0), press('z', 100)]);
    expect(effects.filter((e) => e.type === 'command')).toEqual([]);
    expect(state.leader).toBeUndefined();
    expect(state.flash?.text).toMatch(/Space z is not bound/);
  });

  it('a chunk of keys typed faster than they were read acts key by key outside the prompt', () => {
    const { effects } = run(normalWithBlocks(1), [press(' n')]);
    expect(effects.filter((e) => e.type === 'command')).toEqual([
      { type: 'command', command: { type: 'toggle_network' } },
    ]);
    const typed = run(normalWithBlocks(1), [press('ihello')]).state;
    expect(typed).toMatchObject({ mode: 'insert', input: { text: 'hello' } });
  });

  it('Space ? toggles a which-key overlay that stays until toggled off', () => {
    let state = run(normalWithBlocks(1), [press(' '), press('?')]).state;
    expect(state.overlay).toEqual({ type: 'which_key' });
    expect(whichKeyVisible(state)).toBe(true);
    state = run(state, [press(' ', 5000), press('?', 5010)]).state;
    expect(state.overlay).toBeUndefined();
  });
});

describe('focus, expansion and scrolling', () => {
  it('[ and ] move focus between blocks; Enter and Tab toggle the focused block', () => {
    let state = normalWithBlocks(3);
    const ids = state.blocks.map((block) => block.id);
    state = reduce(state, press(']')).state;
    expect(state.focus).toBe(ids[0]);
    state = run(state, [press(']'), press(']'), press(']')]).state;
    expect(state.focus).toBe(ids[2]);
    state = reduce(state, press('[')).state;
    expect(state.focus).toBe(ids[1]);
    state = reduce(state, named('return')).state;
    expect([...state.expanded]).toEqual([ids[1]]);
    state = reduce(state, named('tab')).state;
    expect([...state.expanded]).toEqual([]);
  });

  it('j/k move a line, Ctrl-d/Ctrl-u half a page, g/G top and bottom (following again at the bottom)', () => {
    let state = normalWithBlocks(40); // 40 rows of content, 10 shown
    expect(state.scroll).toEqual({ follow: true });
    state = reduce(state, press('k')).state;
    expect(state.scroll).toEqual({ follow: false, top: 29 });
    state = reduce(state, press('u', 0, { ctrl: true })).state;
    expect(state.scroll).toEqual({ follow: false, top: 24 });
    state = reduce(state, press('g')).state;
    expect(state.scroll).toEqual({ follow: false, top: 0 });
    state = reduce(state, press('k')).state;
    expect(state.scroll).toEqual({ follow: false, top: 0 });
    state = run(state, [press('j'), press('d', 0, { ctrl: true })]).state;
    expect(state.scroll).toEqual({ follow: false, top: 6 });
    state = reduce(state, press('G')).state;
    expect(state.scroll).toEqual({ follow: true });
    state = run(state, [press('k'), press('j')]).state;
    expect(state.scroll).toEqual({ follow: true });
  });

  it('focusing a block above the view scrolls it into view', () => {
    let state = normalWithBlocks(40);
    state = reduce(state, press(']')).state; // the first block, at row 0
    expect(state.scroll).toEqual({ follow: false, top: 0 });
  });
});

describe('modes', () => {
  it('Esc to NORMAL, i/a back to INSERT, : to COMMAND and Esc out of it', () => {
    let state = start();
    expect(state.mode).toBe('insert');
    state = reduce(state, named('escape')).state;
    expect(state.mode).toBe('normal');
    state = reduce(state, press('a')).state;
    expect(state.mode).toBe('insert');
    state = run(state, [named('escape'), press(':'), press('q')]).state;
    expect(state).toMatchObject({ mode: 'command', commandLine: 'q' });
    state = reduce(state, named('escape')).state;
    expect(state).toMatchObject({ mode: 'normal', commandLine: '' });
  });

  it('typing in INSERT edits the prompt; Enter sends it as a user block and a prompt effect', () => {
    const { state, effects } = run(start(), [
      press('fix the'),
      press(' bug'),
      named('left'),
      named('backspace'),
      named('return'),
    ]);
    expect(effects).toEqual([{ type: 'prompt', text: 'fix the bg' }]);
    expect(state.blocks.at(-1)).toMatchObject({ kind: 'user', text: 'fix the bg' });
    expect(state.running).toBe(true);
    expect(state.input).toEqual({ text: '', cursor: 0 });
  });

  it('keeps newlines of a paste and Ctrl-J; up recalls the last prompt', () => {
    let state = run(start(), [press('one\r\ntwo'), press('j', 0, { ctrl: true }), press('three')]).state;
    expect(state.input.text).toBe('one\ntwo\nthree');
    state = run(state, [named('return'), { type: 'run_finished', now: 1 }, named('up')]).state;
    expect(state.input.text).toBe('one\ntwo\nthree');
  });
});

describe('commands', () => {
  it('parses : commands and / aliases into the same typed commands', () => {
    expect(parseUiCommand('q')).toEqual({ ok: true, command: { type: 'quit' } });
    expect(parseUiCommand('model claude-opus-4-6')).toEqual({
      ok: true,
      command: { type: 'backend', command: { type: 'set_model', model: 'claude-opus-4-6' } },
    });
    expect(slashCommand('/model claude-opus-4-6')).toEqual(parseUiCommand('model claude-opus-4-6'));
    expect(slashCommand('/clear')).toEqual(parseUiCommand('clear'));
    expect(slashCommand('/compact')).toEqual(parseUiCommand('compact'));
    expect(slashCommand('/resume abc')).toEqual(parseUiCommand('resume abc'));
    expect(slashCommand('/help')).toEqual(parseUiCommand('help'));
    expect(slashCommand('/usr/bin is missing')).toBeUndefined();
    expect(parseUiCommand('approval deny-writes')).toEqual({
      ok: true,
      command: { type: 'backend', command: { type: 'set_approval', approval: 'deny-writes' } },
    });
    expect(parseUiCommand('approval maybe').ok).toBe(false);
    expect(parseUiCommand('model').ok).toBe(false);
    expect(parseUiCommand('frobnicate')).toEqual({
      ok: false,
      error: expect.stringMatching(/unknown command/),
    });
  });

  it('a / alias typed as a prompt runs the command instead of prompting the model', () => {
    const { state, effects } = run(start(), [press('/model claude-opus-4-6'), named('return')]);
    expect(effects).toEqual([
      {
        type: 'command',
        command: { type: 'backend', command: { type: 'set_model', model: 'claude-opus-4-6' } },
      },
    ]);
    expect(state.blocks).toEqual([]);
  });

  it(':q quits; :help opens the help overlay; a bad command flashes an error', () => {
    const quit = run(start(), [named('escape'), press(':'), press('q'), named('return')]);
    expect(quit.state.exiting).toBe(true);
    expect(quit.effects).toEqual([{ type: 'command', command: { type: 'quit' } }]);
    const help = run(start(), [named('escape'), press(':'), press('help'), named('return')]);
    expect(help.state.overlay).toEqual({ type: 'help' });
    const bad = run(start(), [named('escape'), press(':'), press('nope'), named('return')]);
    expect(bad.state.flash?.text).toMatch(/unknown command :nope/);
    expect(bad.effects).toEqual([]);
  });
});

describe('Ctrl-C', () => {
  it('interrupts a running turn and does not quit', () => {
    const { state, effects } = run(start(), [press('go'), named('return'), press('c', 10, { ctrl: true })]);
    expect(effects.at(-1)).toEqual({ type: 'interrupt' });
    expect(state.exiting).toBe(false);
  });

  it('when idle quits on a second Ctrl-C within a second, not after', () => {
    const slow = run(start(), [press('c', 0, { ctrl: true }), press('c', 1500, { ctrl: true })]);
    expect(slow.state.exiting).toBe(false);
    expect(slow.state.flash?.text).toMatch(/again to quit/);
    const quick = run(start(), [press('c', 0, { ctrl: true }), press('c', 900, { ctrl: true })]);
    expect(quick.state.exiting).toBe(true);
    expect(quick.effects).toEqual([{ type: 'command', command: { type: 'quit' } }]);
  });
});

describe('engine events', () => {
  it('streams text into one block, tracks a tool call from start to result, and counts usage', () => {
    const usage = { inputTokens: 1234, outputTokens: 567, cacheReadTokens: 800, cacheWriteTokens: 0 };
    const { state } = run(start(), [
      events(
        [
          { type: 'turn_start', turn: 1 },
          { type: 'text_delta', text: 'Hel' },
          { type: 'text_delta', text: 'lo' },
        ],
        100,
      ),
      events([{ type: 'tool_call_start', id: 'c1', name: 'shell', args: { command: 'npm test' } }], 200),
      events([{ type: 'tool_output_line', id: 'c1', stream: 'stdout', text: 'ok 1' }], 300),
      events(
        [
          {
            type: 'tool_call_result',
            id: 'c1',
            name: 'shell',
            output: 'ok 1',
            isError: false,
            durationMs: 240,
          },
          { type: 'usage', turn: usage, total: usage, elapsedMs: 1, outputTokensPerSecond: 1 },
          {
            type: 'usage',
            agent: ['explore-1'],
            turn: usage,
            total: usage,
            elapsedMs: 1,
            outputTokensPerSecond: 1,
          },
          { type: 'context_usage', usedTokens: 76_000, windowTokens: 200_000 },
        ],
        400,
      ),
    ]);
    expect(state.blocks.map((block) => block.kind)).toEqual(['assistant', 'tool']);
    expect(state.blocks[0]).toMatchObject({ text: 'Hello', streaming: false });
    // The streamed line was counted; with the result in, the result's output is what is kept.
    expect(state.blocks[1]).toMatchObject({ status: 'done', startedAt: 200, streamed: [], streamedCount: 1 });
    expect(state.usage.turn).toEqual(usage);
    expect(state.usage.total.inputTokens).toBe(2468);
    expect(state.usage.costUsd).toBeGreaterThan(0);
    expect(state.agents['explore-1']).toMatchObject({ status: 'running' });
  });

  it('an approval is answered with feedback typed on the rejection; Esc never rejects it', () => {
    const request = events([
      { type: 'tool_call_start', id: 'c1', name: 'shell', args: { command: 'rm -rf x' } },
      { type: 'approval_request', requestId: 'r1', callId: 'c1', name: 'shell', args: {}, effect: 'execute' },
    ]);
    const feedback = run(start(), [request, press('3'), press('use trash'), named('return')]);
    expect(feedback.effects).toEqual([
      {
        type: 'answer',
        command: { type: 'approval_response', requestId: 'r1', decision: 'reject', feedback: 'use trash' },
      },
    ]);
    expect(feedback.state.pending).toEqual([]);
    // Esc leaves INSERT and says which keys decide; the approval still waits.
    const esc = run(start(), [request, named('escape')]);
    expect(esc.effects).toEqual([]);
    expect(esc.state.mode).toBe('normal');
    expect(esc.state.pending).toHaveLength(1);
    expect(esc.state.flash?.text).toBe('approval waits: y or n');
    // Esc while typing a reason goes back to the choices; only `n` (or choice 2) rejects.
    const back = run(start(), [request, press('3'), press('why'), named('escape')]);
    expect(back.effects).toEqual([]);
    expect(back.state.pending[0]).toMatchObject({ type: 'approval', requestId: 'r1' });
    expect(back.state.pending[0]).not.toHaveProperty('feedback');
    expect(run(start(), [request, named('escape'), press('n')]).effects).toEqual([
      { type: 'answer', command: { type: 'approval_response', requestId: 'r1', decision: 'reject' } },
    ]);
  });

  it('approve-all answers later approvals of that tool without asking', () => {
    const ask = (id: string) =>
      events([
        { type: 'approval_request', requestId: id, callId: id, name: 'edit_file', args: {}, effect: 'write' },
      ]);
    const { state, effects } = run(start(), [ask('r1'), press('4'), ask('r2')]);
    expect(effects.map((e) => e.type === 'answer' && e.command)).toEqual([
      { type: 'approval_response', requestId: 'r1', decision: 'approve' },
      { type: 'approval_response', requestId: 'r2', decision: 'approve' },
    ]);
    expect(state.pending).toEqual([]);
  });

  it('ask_user takes a listed option by arrows or number, and free text for an open question', () => {
    const { effects } = run(start(), [
      events([
        {
          type: 'ask_user_request',
          requestId: 'q1',
          questions: [{ question: 'Which?', options: ['a', 'b', 'c'] }, { question: 'Why?' }],
        },
      ]),
      press('j'),
      named('down'),
      named('up'),
      named('return'),
      press('because'),
      named('return'),
    ]);
    expect(effects).toEqual([
      { type: 'answer', command: { type: 'ask_user_response', requestId: 'q1', answers: ['b', 'because'] } },
    ]);
  });

  it('the loop cap asks continue or stop; stopping takes its key, not Esc', () => {
    const cap = events([{ type: 'loop_cap_reached', requestId: 'l1', iterations: 50 }]);
    expect(run(start(), [cap, named('return')]).effects).toEqual([
      { type: 'answer', command: { type: 'loop_decision', requestId: 'l1', decision: 'continue' } },
    ]);
    expect(run(start(), [cap, named('escape')]).effects).toEqual([]);
    expect(run(start(), [cap, press('2')]).effects).toEqual([
      { type: 'answer', command: { type: 'loop_decision', requestId: 'l1', decision: 'stop' } },
    ]);
  });
});
