import chalk from 'chalk';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentTreeRows } from '../../../harness/tui/agent-tree.js';
import { conversationRows, Screen } from '../../../harness/tui/components/screen.js';
import { key } from '../../../harness/tui/key-input.js';
import { agentTreeLines } from '../../../harness/tui/render/agent-tree-lines.js';
import { BlockLineCache } from '../../../harness/tui/render/line-cache.js';
import { TuiController } from '../../../harness/tui/tui-controller.js';
import { createUiReducer, type UiInput } from '../../../harness/tui/ui-reducer.js';
import { type Effect, initialUiState, type UiState } from '../../../harness/tui/ui-state.js';
import type { Message } from '../../../shared/conversation.js';
import type { DispatchRecord } from '../../../shared/dispatch-telemetry.js';
import type { EngineEvent } from '../../../shared/engine-events.js';
import { FakeAgentBackend } from '../../support/fake-agent-backend.js';

let level: typeof chalk.level;
beforeEach(() => {
  level = chalk.level;
  chalk.level = 0;
});
afterEach(() => {
  chalk.level = level;
});

const events = (list: Array<Partial<EngineEvent> & { type: EngineEvent['type'] }>, now = 0): UiInput => ({
  type: 'events',
  events: list.map((event) => ({ agent: [], ...event }) as EngineEvent),
  now,
});
const press = (text: string, extra: Parameters<typeof key>[1] = {}, now = 1000): UiInput => ({
  type: 'key',
  key: key(text, extra),
  now,
});
const escKey = press('', { name: 'escape' });
const enter = press('', { name: 'return' });

/** A UI driven through the real reducer with the real renderer's metrics, collecting effects. */
function ui(columns = 100, rows = 24) {
  const cache = new BlockLineCache();
  const reduce = createUiReducer(cache.metrics(conversationRows));
  let state: UiState = initialUiState({ now: 0, columns, rows, model: 'claude-sonnet-4-5', network: 'off' });
  const effects: Effect[] = [];
  return {
    get state() {
      return state;
    },
    effects,
    step(...inputs: UiInput[]) {
      for (const input of inputs) {
        const step = reduce(state, input);
        state = step.state;
        effects.push(...step.effects);
      }
    },
    frame(): string {
      const { lastFrame, unmount } = render(<Screen state={state} cache={cache} />);
      const text = lastFrame() ?? '';
      unmount();
      return text;
    },
  };
}

/** The main agent spawns two sub-agents; the first spawns one of its own. */
const SPAWNS = events([
  { type: 'text_done', text: 'look around' },
  { type: 'tool_call_start', id: 'call-a', name: 'spawn_agent', args: { task: 'explore the parser' } },
  { type: 'tool_call_start', id: 'call-b', name: 'spawn_agent', args: { task: 'write the tests' } },
  { type: 'turn_start', agent: ['agent-1'], turn: 1, parentCallId: 'call-a' },
  {
    type: 'tool_call_start',
    agent: ['agent-1'],
    id: 'call-c',
    name: 'spawn_agent',
    args: { task: 'read the lexer' },
    parentCallId: 'call-a',
  },
  { type: 'turn_start', agent: ['agent-2'], turn: 1, parentCallId: 'call-b' },
  { type: 'turn_start', agent: ['agent-1', 'agent-1'], turn: 1, parentCallId: 'call-c' },
  { type: 'turn_end', agent: ['agent-2'], turn: 1, reason: 'complete' },
]);

/** What agent-2's session log holds: its task, a read, an edit (with its diff as output), its answer. */
const AGENT_2: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'write the tests' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading the module.' },
      { type: 'tool_use', id: 'r1', name: 'read_file', input: { path: 'a.ts' } },
    ],
  },
  {
    role: 'user',
    content: [{ type: 'tool_result', callId: 'r1', output: '1\texport const a = 1;', isError: false }],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'tool_use',
        id: 'e1',
        name: 'edit_file',
        input: { path: 'a.test.ts', old_string: 'todo', new_string: 'expect(a).toBe(1)' },
      },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        callId: 'e1',
        output: '--- a.test.ts\n+++ a.test.ts\n@@ -1 +1 @@\n-todo\n+expect(a).toBe(1)',
        isError: false,
      },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'Tests written.' }] },
];

describe('agent tree', () => {
  it('orders sub-agents as a tree and links each to its spawn call and task', () => {
    const u = ui();
    u.step(SPAWNS);
    const rows = agentTreeRows(u.state.agents).map(({ run, lastAt }) => ({
      path: run.path,
      task: run.task,
      parentCallId: run.parentCallId,
      status: run.status,
      lastAt,
    }));
    expect(rows).toEqual([
      {
        path: 'agent-1',
        task: 'explore the parser',
        parentCallId: 'call-a',
        status: 'running',
        lastAt: [false],
      },
      {
        path: 'agent-1/agent-1',
        task: 'read the lexer',
        parentCallId: 'call-c',
        status: 'running',
        lastAt: [false, true],
      },
      { path: 'agent-2', task: 'write the tests', parentCallId: 'call-b', status: 'done', lastAt: [true] },
    ]);
  });

  it('shows what a dispatch ended with: its definition, a typed failure, its cache hit rate', () => {
    const u = ui();
    u.step(SPAWNS);
    const record = (agentId: string, extra: Partial<DispatchRecord>): DispatchRecord => ({
      status: 'completed',
      agent_id: agentId,
      turns: 1,
      tool_calls: 0,
      input_tokens: 100,
      output_tokens: 10,
      cache_read_tokens: 300,
      cache_write_tokens: 0,
      tokens: 410,
      invalid_schema_retries: 0,
      approval_loops: 0,
      wall_ms: 5,
      prefix_sha256: 'a'.repeat(64),
      ...extra,
    });
    u.step(
      events([
        {
          type: 'dispatch_end',
          agent: ['agent-1'],
          parentCallId: 'call-a',
          record: record('agent-1', { status: 'failed', failure: 'budget_exceeded', agent_name: 'explorer' }),
        },
        {
          type: 'dispatch_end',
          agent: ['agent-2'],
          parentCallId: 'call-b',
          record: record('agent-2', { status: 'completed' }),
        },
      ]),
    );
    expect(u.state.agents['agent-1']).toMatchObject({
      status: 'error',
      failure: 'budget_exceeded',
      agentName: 'explorer',
    });
    const lines = agentTreeLines(u.state, 0, 56, 12).map((line) => line.trimEnd());
    expect(lines).toContain(' ├─ agent-1 (explorer) [budget_exceeded]');
    expect(lines.some((line) => line.includes('agent-2 [done ✓]'))).toBe(true);
    expect(lines.filter((line) => line.includes('cache 75%'))).toHaveLength(2);
  });

  it('j/k move the selection round the tree; Enter opens a loading replay and asks for its log', () => {
    const u = ui();
    u.step(SPAWNS, escKey, press(' '), press('a'));
    expect(u.state.overlay).toEqual({ type: 'agent_tree', selected: 0 });
    u.step(press('k'));
    expect(u.state.overlay).toEqual({ type: 'agent_tree', selected: 2 });
    u.step(press('j'), press('j'), press('j'));
    expect(u.state.overlay).toEqual({ type: 'agent_tree', selected: 2 });
    u.step(enter);
    expect(u.state.overlay).toBeUndefined();
    expect(u.state.replay).toMatchObject({ agent: 'agent-2', loading: true });
    expect(u.effects.at(-1)).toEqual({ type: 'load_replay', agent: 'agent-2', parentCallId: 'call-b' });
    expect(u.frame()).toContain(' REPLAY agent-2 ');
  });

  it('the replay shows the sub-agent conversation with the same blocks, read-only; Esc restores the live view', () => {
    const u = ui(100, 30);
    u.step(SPAWNS, escKey, press(']'), press(']'), enter);
    const live = { focus: u.state.focus, expanded: u.state.expanded, scroll: u.state.scroll };
    expect(live.focus).toBeDefined();
    u.step(press(' '), press('a'), press('k'), enter);
    u.step({ type: 'replay_loaded', agent: 'agent-2', conversation: AGENT_2, now: 1500 });
    let screen = u.frame();
    expect(screen).toContain(' REPLAY agent-2 ');
    expect(screen).toContain('› write the tests');
    expect(screen).toContain('▸ read_file(a.ts)');
    expect(screen).toContain('▸ edit_file(a.test.ts)');
    expect(screen).toContain('Tests written.');
    // The live conversation is not drawn meanwhile.
    expect(screen).not.toContain('look around');

    // The same movement and expansion as the live view, on the replay's own focus.
    u.step(press(']'), press(']'), press(']'), press(']'), enter);
    screen = u.frame();
    expect(screen).toContain('▾ edit_file(a.test.ts)');
    expect(screen).toMatch(/\+expect\(a\)\.toBe\(1\)/);

    // Read-only: no INSERT, no command line, no chords.
    for (const blocked of ['i', 'a', ':', ' ']) {
      u.step(press(blocked));
      expect(u.state.mode).toBe('normal');
      expect(u.state.leader).toBeUndefined();
      expect(u.state.replay?.agent).toBe('agent-2');
    }
    screen = u.frame();
    expect(screen).toContain('read-only: Esc goes back');
    // The badges stay whole beside the message.
    expect(screen).toMatch(/ REPLAY agent-2 {2}\[ EXECUTE · read-only: Esc goes back \] .*\[ NET: off \]/);
    expect(u.effects.filter((effect) => effect.type === 'prompt' || effect.type === 'command')).toEqual([]);

    u.step(escKey);
    expect(u.state.replay).toBeUndefined();
    expect({ focus: u.state.focus, expanded: u.state.expanded, scroll: u.state.scroll }).toEqual(live);
    expect(u.frame()).toContain('look around');
  });

  it('live events keep landing in the live conversation during a replay', () => {
    const u = ui();
    u.step(SPAWNS, escKey, press(' '), press('a'), enter);
    u.step({ type: 'replay_loaded', agent: 'agent-1', conversation: AGENT_2.slice(0, 1), now: 1500 });
    u.step(events([{ type: 'text_done', text: 'Meanwhile in main.' }], 1600));
    expect(u.frame()).not.toContain('Meanwhile in main.');
    expect(u.state.replay?.view.blocks).toHaveLength(1);
    u.step(escKey);
    expect(u.frame()).toContain('Meanwhile in main.');
  });

  it('a log that cannot be read shows why in the replay; a stale load is ignored', () => {
    const u = ui();
    u.step(SPAWNS, escKey, press(' '), press('a'), enter);
    u.step({ type: 'replay_loaded', agent: 'agent-2', conversation: AGENT_2, now: 1500 });
    expect(u.state.replay).toMatchObject({ agent: 'agent-1', loading: true });
    u.step({ type: 'replay_loaded', agent: 'agent-1', error: 'no session log to replay agent-1', now: 1500 });
    expect(u.state.replay?.loading).toBe(false);
    expect(u.frame()).toContain('no session log to replay agent-1');
  });
});

describe('the controller reads the replayed log', () => {
  async function replayThroughController(sessionId: string | undefined) {
    const backend = new FakeAgentBackend();
    backend.sessionId = sessionId;
    const asked: Array<[string, string]> = [];
    const cache = new BlockLineCache();
    const controller = new TuiController({
      backend,
      reduce: createUiReducer(cache.metrics(conversationRows)),
      initial: initialUiState({ now: 0, columns: 100, rows: 24, model: backend.model }),
      now: () => 1000,
      onExit: () => {},
      subAgentConversation: async (session, callId) => {
        asked.push([session, callId]);
        return AGENT_2;
      },
    });
    controller.start();
    controller.dispatch(SPAWNS);
    for (const input of [escKey, press(' '), press('a'), press('k'), enter]) controller.dispatch(input);
    for (let i = 0; i < 50 && controller.current.replay?.loading; i++)
      await new Promise((r) => setTimeout(r, 10));
    controller.stop();
    return { state: controller.current, asked };
  }

  it("asks for the selected sub-agent's log by session and spawn call, and shows it", async () => {
    const { state, asked } = await replayThroughController('session-1');
    expect(asked).toEqual([['session-1', 'call-b']]);
    expect(state.replay?.loading).toBe(false);
    expect(state.replay?.view.blocks.map((block) => block.kind)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
  });

  it('without a session log the replay says so', async () => {
    const { state, asked } = await replayThroughController(undefined);
    expect(asked).toEqual([]);
    expect(state.replay?.view.blocks).toMatchObject([
      { kind: 'notice', level: 'error', text: expect.stringContaining('--no-session') },
    ]);
  });
});
