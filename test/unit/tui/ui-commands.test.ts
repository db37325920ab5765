import { describe, expect, it } from 'vitest';
import type { LoggedMessage } from '../../../harness/runtime/logged-message.js';
import type { UiEvent } from '../../../harness/tui/apply-engine-events.js';
import { forkPoint } from '../../../harness/tui/attach-origins.js';
import { historyEvents } from '../../../harness/tui/history-events.js';
import { key } from '../../../harness/tui/key-input.js';
import { parseUiCommand } from '../../../harness/tui/ui-command.js';
import { createUiReducer, type UiInput } from '../../../harness/tui/ui-reducer.js';
import {
  type Block,
  initialUiState,
  type SessionPick,
  type ToolBlock,
  type UiState,
} from '../../../harness/tui/ui-state.js';
import type { ViewMetrics } from '../../../harness/tui/view-metrics.js';
import type { Message } from '../../../shared/conversation.js';
import type { EngineEvent } from '../../../shared/engine-events.js';

const metrics: ViewMetrics = {
  blockHeight: (_block: Block, expanded: boolean) => (expanded ? 10 : 1),
  conversationRows: (state: UiState) => state.size.rows - 2,
};
const reduce = createUiReducer(metrics);

function start(overrides: Partial<UiState> = {}): UiState {
  return { ...initialUiState({ now: 0, columns: 80, rows: 20, model: 'claude-sonnet-4-6' }), ...overrides };
}

function run(state: UiState, inputs: UiInput[]) {
  const effects: ReturnType<typeof reduce>['effects'] = [];
  for (const input of inputs) {
    const step = reduce(state, input);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

const press = (text: string): UiInput => ({ type: 'key', key: key(text), now: 0 });
const named = (name: NonNullable<Parameters<typeof key>[1]>['name']): UiInput => ({
  type: 'key',
  key: key('', { name }),
  now: 0,
});
const command = (line: string): UiInput[] => [named('escape'), press(':'), press(line), named('return')];
const events = (list: Array<(Partial<EngineEvent> & { type: EngineEvent['type'] }) | UiEvent>): UiInput => ({
  type: 'events',
  events: list.map((event) => ({ agent: [], ...event }) as UiEvent),
  now: 0,
});
const logged = (
  kind: LoggedMessage['kind'],
  eventId: string,
  parentId: string | null,
  callIds: string[] = [],
): UiEvent => ({ type: 'message_logged', agent: [], logged: { kind, eventId, parentId, callIds } });

const PICKS: SessionPick[] = [
  {
    id: 'aaa',
    title: 'Newest',
    lastActivity: '2026-11-23T11:00:00.000Z',
    tokens: 10,
    cost: '$0.01',
    current: true,
  },
  {
    id: 'bbb',
    title: 'Middle',
    lastActivity: '2026-11-22T11:00:00.000Z',
    tokens: 20,
    cost: '$0.02',
    current: false,
  },
  {
    id: 'ccc',
    title: 'Oldest',
    lastActivity: '2026-11-21T11:00:00.000Z',
    tokens: 30,
    cost: '$0.03',
    current: false,
  },
];

describe(':approval', () => {
  it('parses to the set_approval runtime command, which is sent even while a turn runs', () => {
    expect(parseUiCommand('approval ask')).toEqual({
      ok: true,
      command: { type: 'backend', command: { type: 'set_approval', approval: 'ask' } },
    });
    const running = start({ running: true });
    expect(run(running, command('approval auto')).effects).toEqual([
      { type: 'command', command: { type: 'backend', command: { type: 'set_approval', approval: 'auto' } } },
    ]);
    // Other state changes still wait for the turn.
    const model = run(running, command('model claude-opus-4-6'));
    expect(model.effects).toEqual([]);
    expect(model.state.flash?.text).toMatch(/a turn is running/);
  });
});

describe(':policy, :cost and :sessions', () => {
  it('ask the shell (they read the policy and the session log)', () => {
    for (const [line, type] of [
      ['policy', 'policy'],
      ['cost', 'cost'],
      ['sessions', 'sessions'],
      ['resume', 'sessions'],
    ] as const) {
      expect(run(start(), command(line)).effects).toEqual([{ type: 'command', command: { type } }]);
    }
    // `/resume` with no id at the start of a prompt opens the picker too.
    expect(run(start(), [press('/resume'), named('return')]).effects).toEqual([
      { type: 'command', command: { type: 'sessions' } },
    ]);
  });
});

describe('the sessions picker', () => {
  const open = (): UiState =>
    run(start({ mode: 'normal' }), [
      { type: 'overlay', overlay: { type: 'sessions', sessions: PICKS, selected: 0 } },
    ]).state;

  it('j/k and the arrows move within the list; Enter resumes the selected session', () => {
    let { state } = run(open(), [press('j'), named('down'), named('down')]);
    expect(state.overlay).toMatchObject({ type: 'sessions', selected: 2 });
    ({ state } = run(state, [press('k')]));
    expect(state.overlay).toMatchObject({ selected: 1 });
    const chosen = run(state, [named('return')]);
    expect(chosen.effects).toEqual([
      { type: 'command', command: { type: 'backend', command: { type: 'resume', sessionId: 'bbb' } } },
    ]);
    expect(chosen.state.overlay).toBeUndefined();
  });

  it('Esc closes without a command; Enter on the current session says so; keys go nowhere else', () => {
    const closed = run(open(), [named('escape')]);
    expect(closed.state.overlay).toBeUndefined();
    expect(closed.effects).toEqual([]);
    const current = run(open(), [named('return')]);
    expect(current.effects).toEqual([]);
    expect(current.state.flash?.text).toMatch(/this session/);
    // A key the picker does not use leaves it open and does not reach the prompt or the leader.
    const other = run(open(), [press('x'), press(' ')]);
    expect(other.state.overlay).toMatchObject({ type: 'sessions', selected: 0 });
    expect(other.state.leader).toBeUndefined();
  });
});

describe(':fork', () => {
  /** A prompt, a reply with text and a tool call, its results, a second prompt and reply, all logged. */
  function conversation(): UiState {
    return run(start(), [
      press('first'),
      named('return'),
      events([
        logged('prompt', 'e1', null),
        { type: 'turn_start', turn: 1 },
        { type: 'text_delta', text: 'Looking.' },
        { type: 'tool_call_start', id: 'c1', name: 'shell', args: { command: 'ls' } },
        logged('reply', 'e2', 'e1'),
        { type: 'tool_call_result', id: 'c1', name: 'shell', output: 'a\n', isError: false, durationMs: 1 },
        logged('tool_results', 'e3', 'e2', ['c1']),
        { type: 'text_delta', text: 'Done.' },
        logged('reply', 'e4', 'e3'),
        { type: 'turn_end', turn: 2, reason: 'complete' },
      ]),
      { type: 'run_finished', now: 0 },
      press('second'),
      named('return'),
      events([logged('prompt', 'e5', 'e4'), { type: 'info', message: 'a note' }]),
    ]).state;
  }

  it('blocks learn where their message is in the log as it lands', () => {
    const { blocks } = conversation();
    expect(
      blocks.map((block) => [block.kind, 'origin' in block ? block.origin?.eventId : undefined]),
    ).toEqual([
      ['user', 'e1'],
      ['assistant', 'e2'],
      ['tool', 'e2'],
      ['assistant', 'e4'],
      ['user', 'e5'],
      ['notice', undefined],
    ]);
    expect((blocks[2] as ToolBlock).resultEventId).toBe('e3');
  });

  it('forks through a reply (with its tool results), and just before a prompt so it can be asked again', () => {
    const { blocks } = conversation();
    expect(forkPoint(blocks, blocks[1]!)).toEqual({ atEventId: 'e3' });
    expect(forkPoint(blocks, blocks[2]!)).toEqual({ atEventId: 'e3' });
    expect(forkPoint(blocks, blocks[3]!)).toEqual({ atEventId: 'e4' });
    expect(forkPoint(blocks, blocks[4]!)).toEqual({ atEventId: 'e4', retype: 'second' });
    expect(forkPoint(blocks, blocks[0]!)).toMatchObject({ error: expect.stringMatching(/first prompt/) });
    expect(forkPoint(blocks, blocks[5]!)).toMatchObject({ error: expect.stringMatching(/prompt, a reply/) });
    const unlogged: Block = { kind: 'assistant', id: 'x', text: 'streaming', streaming: true };
    expect(forkPoint([unlogged], unlogged)).toMatchObject({
      error: expect.stringMatching(/not in the session log/),
    });
  });

  it('needs a focused block and an idle agent; then asks the shell', () => {
    const state = conversation();
    const unfocused = run({ ...state, running: false }, command('fork'));
    expect(unfocused.effects).toEqual([]);
    expect(unfocused.state.flash?.text).toMatch(/focused block/);
    const colonFork = [press(':'), press('fork'), named('return')];
    const focused = run({ ...state, running: false }, [named('escape'), press('['), ...colonFork]);
    expect(focused.effects).toEqual([{ type: 'command', command: { type: 'fork_focused' } }]);
    expect(focused.state.focus).toBe(state.blocks.at(-1)!.id);
    const busy = run({ ...state, running: true }, [named('escape'), press('['), ...colonFork]);
    expect(busy.effects).toEqual([]);
    expect(busy.state.flash?.text).toMatch(/a turn is running/);
  });

  it('a forked-away prompt comes back in the prompt line to be edited', () => {
    const { state } = run(start({ mode: 'normal' }), [
      { type: 'backend', now: 0, sessionId: 'fork', reset: true, retype: 'second' },
    ]);
    expect(state.mode).toBe('insert');
    expect(state.input).toEqual({ text: 'second', cursor: 6 });
    expect(state.blocks).toEqual([]);
  });

  it('a resumed conversation drawn from history carries the same origins', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'c1', name: 'shell', input: { command: 'ls' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', callId: 'c1', output: 'a', isError: false }] },
    ];
    const refs = new Map(
      messages.map((message, i) => [message, { eventId: `e${i + 1}`, parentId: i ? `e${i}` : null }]),
    );
    const { blocks } = run(start(), [
      { type: 'events', events: historyEvents(messages, (message) => refs.get(message)), now: 0 },
    ]).state;
    expect(blocks.map((block) => (block.kind === 'notice' ? undefined : block.origin?.eventId))).toEqual([
      'e1',
      'e2',
      'e2',
    ]);
    expect(forkPoint(blocks, blocks[1]!)).toEqual({ atEventId: 'e3' });
  });
});

describe('multi-select ask_user', () => {
  const asked = (): UiState =>
    run(start(), [
      events([
        {
          type: 'ask_user_request',
          requestId: 'q1',
          questions: [
            { question: 'Which features?', options: ['auth', 'search', 'billing'], multiSelect: true },
            { question: 'Which one first?', options: ['auth', 'search'] },
          ],
        },
      ]),
    ]).state;

  it('Space and digits tick options, Enter sends the ticked ones; the next question starts clear', () => {
    let { state } = run(asked(), [press(' '), named('down'), named('down'), press(' ')]);
    expect(state.pending[0]).toMatchObject({ type: 'ask_user', choice: 2, selected: [0, 2] });
    ({ state } = run(state, [press('1')]));
    expect(state.pending[0]).toMatchObject({ selected: [2] });
    ({ state } = run(state, [press('2')]));
    expect(state.pending[0]).toMatchObject({ selected: [1, 2] });
    const first = run(state, [named('return')]);
    expect(first.effects).toEqual([]);
    expect(first.state.pending[0]).toMatchObject({
      index: 1,
      answers: ['search, billing'],
      selected: [],
      choice: 0,
    });
    // The second question takes one answer: Space does nothing there, Enter picks.
    const second = run(first.state, [press(' '), named('down'), named('return')]);
    expect(second.effects).toEqual([
      {
        type: 'answer',
        command: { type: 'ask_user_response', requestId: 'q1', answers: ['search, billing', 'search'] },
      },
    ]);
  });

  it('Enter with nothing ticked sends the option at the cursor; Esc declines', () => {
    const cursor = run(asked(), [named('down'), named('return'), named('return')]);
    expect(cursor.effects).toEqual([
      {
        type: 'answer',
        command: { type: 'ask_user_response', requestId: 'q1', answers: ['search', 'auth'] },
      },
    ]);
    const declined = run(asked(), [press(' '), named('escape')]);
    expect(declined.effects).toEqual([
      { type: 'answer', command: { type: 'ask_user_response', requestId: 'q1', answers: ['', ''] } },
    ]);
  });
});

describe('starting with a task', () => {
  it('submit sends the text as a prompt, as typed and entered', () => {
    const { state, effects } = run(start(), [{ type: 'submit', text: 'fix the bug', now: 5 }]);
    expect(effects).toEqual([{ type: 'prompt', text: 'fix the bug' }]);
    expect(state.blocks).toMatchObject([{ kind: 'user', text: 'fix the bug' }]);
    expect(state.running).toBe(true);
    expect(state.input.text).toBe('');
  });
});
