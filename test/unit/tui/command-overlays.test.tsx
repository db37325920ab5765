import chalk from 'chalk';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSessionWriter } from '../../../harness/session/session-writer.js';
import { conversationRows, Screen } from '../../../harness/tui/components/screen.js';
import { BlockLineCache } from '../../../harness/tui/render/line-cache.js';
import { TuiApp } from '../../../harness/tui/tui-app.js';
import { TuiController } from '../../../harness/tui/tui-controller.js';
import { createUiReducer, type UiInput } from '../../../harness/tui/ui-reducer.js';
import { initialUiState, type SessionPick, type UiState } from '../../../harness/tui/ui-state.js';
import type { EngineEvent } from '../../../shared/engine-events.js';
import { FakeAgentBackend } from '../../support/fake-agent-backend.js';
import { testPolicy } from '../../support/policies.js';
import { assistant, usage, userText } from '../../support/session-fixtures.js';
import { tempDir } from '../../support/temp-dir.js';

let level: typeof chalk.level;
beforeEach(() => {
  level = chalk.level;
  chalk.level = 0;
});
afterEach(() => {
  chalk.level = level;
});

const NOW = Date.parse('2026-11-23T12:00:00.000Z');

function frame(state: UiState): string {
  const { lastFrame, unmount } = render(<Screen state={state} cache={new BlockLineCache()} />);
  const text = lastFrame() ?? '';
  unmount();
  return text;
}

function stepped(inputs: UiInput[], columns = 80, rows = 24): UiState {
  const reduce = createUiReducer(new BlockLineCache().metrics(conversationRows));
  let state = initialUiState({ now: NOW, columns, rows, model: 'claude-sonnet-4-6', network: 'off' });
  for (const input of inputs) state = reduce(state, input).state;
  return state;
}

const PICKS: SessionPick[] = [
  {
    id: 'a',
    title: 'Fix the flaky timer test',
    lastActivity: '2026-11-23T11:58:00.000Z',
    tokens: 12_345,
    cost: '$0.04',
    current: true,
  },
  {
    id: 'b',
    title: 'Rename the config loader and update every caller in the repository at once',
    lastActivity: '2026-11-23T09:00:00.000Z',
    tokens: 950,
    cost: '<$0.01',
    current: false,
  },
  { id: 'c', title: '', lastActivity: '2026-11-10T09:00:00.000Z', tokens: 0, cost: '$0.00', current: false },
];

describe('command overlays (snapshots)', () => {
  it('the sessions picker: title, time, tokens and cost per row, the selection inverted, this session marked', () => {
    const state = stepped([{ type: 'overlay', overlay: { type: 'sessions', sessions: PICKS, selected: 1 } }]);
    const screen = frame(state);
    expect(screen).toContain('sessions, newest first');
    expect(screen).toMatch(/• Fix the flaky timer test +2m ago +12\.3k tok +\$0\.04/);
    expect(screen).toMatch(/ {2}Rename the config loader.*… +3h ago +950 tok +<\$0\.01/);
    expect(screen).toMatch(/\(no prompt\) +2026-11-10 +0 tok +\$0\.00/);
    expect(screen).toContain('Enter resumes');
    expect(screen).toMatchSnapshot();
  });

  it('a long list scrolls with the selection and says where it is', () => {
    const many = Array.from({ length: 15 }, (_, i) => ({ ...PICKS[1]!, id: `s${i}`, title: `session ${i}` }));
    const screen = frame(
      stepped([{ type: 'overlay', overlay: { type: 'sessions', sessions: many, selected: 12 } }], 80, 30),
    );
    expect(screen).toContain('session 12');
    expect(screen).not.toContain('session 2 ');
    expect(screen).toContain('13/15');
  });

  it('a multi-select question: a box per option, ticked ones marked, the cursor on one', () => {
    const event: EngineEvent = {
      type: 'ask_user_request',
      agent: [],
      requestId: 'q',
      questions: [{ question: 'Which features?', options: ['auth', 'search', 'billing'], multiSelect: true }],
    };
    const key = (text: string, name?: 'down'): UiInput => ({
      type: 'key',
      key: name ? { text: '', name } : { text },
      now: NOW,
    });
    const state = stepped([
      { type: 'events', events: [event], now: NOW },
      key(' '),
      key('', 'down'),
      key('', 'down'),
      key(' '),
      key('', 'down'),
      key('', 'down'),
    ]);
    const screen = frame(state);
    expect(screen).toContain('? Which features?');
    expect(screen).toContain('  1. [x] auth');
    expect(screen).toContain('❯ 2. [ ] search');
    expect(screen).toContain('  3. [x] billing');
    expect(screen).toContain('Space or a number ticks');
    expect(screen).toMatchSnapshot();
  });
});

function mount(backend: FakeAgentBackend) {
  const cache = new BlockLineCache();
  const controller = new TuiController({
    backend,
    reduce: createUiReducer(cache.metrics(conversationRows)),
    initial: initialUiState({ now: Date.now(), columns: 100, rows: 30, model: backend.model }),
    now: Date.now,
    onExit: () => {},
  });
  const app = render(<TuiApp controller={controller} cache={cache} now={Date.now} />);
  controller.start();
  return {
    app,
    controller,
    async type(...chunks: string[]) {
      for (const chunk of chunks) {
        app.stdin.write(chunk);
        await tick(30);
      }
    },
    cleanup() {
      controller.stop();
      app.unmount();
    },
  };
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (check()) return;
    await tick(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const ESC = '\x1b';
const ENTER = '\r';

describe('commands carried out by the controller', () => {
  it(':sessions lists the workspace sessions as `skate sessions list` finds them; Enter resumes one', async () => {
    await using dir = await tempDir();
    const ids: string[] = [];
    for (const [prompt, title] of [
      ['older prompt\nsecond line', undefined],
      ['newer prompt', 'A recorded title'],
    ] as const) {
      const writer = await createSessionWriter(
        { workspace: dir.path, model: 'claude-sonnet-4-6', policy: 'execute' },
        { sync: 'close' },
      );
      writer.userMessage(userText(prompt));
      writer.assistantMessage(assistant({ type: 'text', text: 'ok' }), usage(1000, 100), 'claude-sonnet-4-6');
      if (title) writer.append({ type: 'title', title });
      await writer.close();
      ids.push(writer.header.id);
      await tick(5);
    }
    const backend = new FakeAgentBackend();
    backend.workspace = dir.path;
    backend.sessionId = ids[1]!;
    const ui = mount(backend);
    try {
      await ui.type(ESC, ':sessions', ENTER);
      await until(() => (ui.app.lastFrame() ?? '').includes('sessions, newest first'), 'the picker');
      const screen = ui.app.lastFrame() ?? '';
      // Newest first, the recorded title or else the first line of the first prompt.
      expect(screen.indexOf('A recorded title')).toBeLessThan(screen.indexOf('older prompt'));
      expect(screen).not.toContain('second line');
      expect(screen).toMatch(/1\.10k tok +<\$0\.01/);
      await ui.type('j', ENTER);
      await until(() => backend.applied.length > 0, 'the resume');
      expect(backend.applied).toEqual([{ type: 'resume', sessionId: ids[0] }]);
    } finally {
      ui.cleanup();
    }
  });

  it(':fork at a focused reply forks through its tool results; at a prompt, before it, with the prompt back to edit', async () => {
    const backend = new FakeAgentBackend(async (self, text) => {
      if (text === 'second') {
        self.logged({ kind: 'prompt', eventId: 'e5', parentId: 'e4', callIds: [] });
        return;
      }
      self.logged({ kind: 'prompt', eventId: 'e1', parentId: null, callIds: [] });
      self.emit({ type: 'turn_start', turn: 1 });
      self.emit({ type: 'text_delta', text: 'Looking.' });
      self.emit({ type: 'tool_call_start', id: 'c1', name: 'shell', args: { command: 'ls' } });
      self.logged({ kind: 'reply', eventId: 'e2', parentId: 'e1', callIds: [] });
      self.emit({
        type: 'tool_call_result',
        id: 'c1',
        name: 'shell',
        output: 'a',
        isError: false,
        durationMs: 1,
      });
      self.logged({ kind: 'tool_results', eventId: 'e3', parentId: 'e2', callIds: ['c1'] });
      self.emit({ type: 'text_delta', text: 'All listed.' });
      self.logged({ kind: 'reply', eventId: 'e4', parentId: 'e3', callIds: [] });
      self.emit({ type: 'turn_end', turn: 2, reason: 'complete' });
    });
    const ui = mount(backend);
    try {
      await ui.type('list', ENTER);
      await until(
        () => (ui.app.lastFrame() ?? '').includes('All listed.') && !ui.controller.current.running,
        'the run',
      );
      // NORMAL; focus the last reply, then the shell call above it; fork there.
      await ui.type(ESC, '[', '[', ':fork', ENTER);
      await until(() => backend.applied.length > 0, 'the fork');
      expect(backend.applied).toEqual([{ type: 'fork', atEventId: 'e3' }]);
      await until(() => ui.controller.current.sessionId === 'fork-at-e3', 'the forked agent');
      expect(ui.controller.current.blocks).toEqual([]);
    } finally {
      ui.cleanup();
    }

    const again = mount(backend);
    try {
      await again.type('list', ENTER);
      await until(
        () => !again.controller.current.running && again.controller.current.blocks.length > 2,
        'the run',
      );
      // The first prompt: nothing comes before it to fork at.
      await again.type(ESC, 'g', '[', '[', '[', '[', ':fork', ENTER);
      await until(() => (again.controller.current.flash?.text ?? '').includes('first prompt'), 'the refusal');
      expect(backend.applied).toHaveLength(1);
      // A later prompt: the fork ends just before it, and the prompt is back in the prompt line.
      await again.type('i', 'second', ENTER);
      await until(() => !again.controller.current.running && backend.prompts.length === 3, 'the second run');
      // Esc twice: NORMAL, then no focus; `[` focuses the last block, the new prompt.
      await again.type(ESC, ESC, '[', ':fork', ENTER);
      await until(() => backend.applied.length > 1, 'the second fork');
      expect(backend.applied[1]).toEqual({ type: 'fork', atEventId: 'e4' });
      await until(() => again.controller.current.input.text === 'second', 'the prompt back');
      expect(again.controller.current.mode).toBe('insert');
    } finally {
      again.cleanup();
    }
  });

  it(':approval changes the mode through the runtime command; :policy shows the policy report and the mode', async () => {
    await using dir = await tempDir();
    const backend = new FakeAgentBackend();
    backend.policy = testPolicy(dir.path);
    const ui = mount(backend);
    try {
      await ui.type(ESC, ':approval ask', ENTER);
      await until(() => backend.applied.length > 0, 'the approval change');
      expect(backend.applied).toEqual([{ type: 'set_approval', approval: 'ask' }]);
      await ui.type(':policy', ENTER);
      await until(() => (ui.app.lastFrame() ?? '').includes('enforcement'), 'the policy');
      const screen = ui.app.lastFrame() ?? '';
      expect(screen).toContain(`workspace         ${dir.path}`);
      expect(screen).toMatch(/network +off/);
      expect(screen).toMatch(/approval +ask/);
    } finally {
      ui.cleanup();
    }
  });

  it(':cost reads the session log: its totals with sub-agents, and what the UI saw', async () => {
    await using dir = await tempDir();
    const writer = await createSessionWriter(
      { workspace: dir.path, model: 'claude-sonnet-4-6', policy: 'execute' },
      { sync: 'close' },
    );
    writer.userMessage(userText('go'));
    writer.assistantMessage(assistant({ type: 'text', text: 'ok' }), usage(2000, 300), 'claude-sonnet-4-6');
    const child = await createSessionWriter(
      {
        workspace: dir.path,
        model: 'claude-sonnet-4-6',
        policy: 'execute',
        parentSessionId: writer.header.id,
      },
      { sync: 'close' },
    );
    child.assistantMessage(assistant({ type: 'text', text: 'sub' }), usage(500, 50), 'claude-sonnet-4-6');
    await Promise.all([writer.close(), child.close()]);
    const backend = new FakeAgentBackend();
    backend.workspace = dir.path;
    backend.sessionId = writer.header.id;
    const ui = mount(backend);
    try {
      await ui.type(ESC, ':cost', ENTER);
      await until(() => (ui.app.lastFrame() ?? '').includes('of which this agent'), 'the cost');
      const screen = ui.app.lastFrame() ?? '';
      expect(screen).toContain('in 2.50k out 350');
      expect(screen).toContain('of which this agent: in 2.00k out 300');
    } finally {
      ui.cleanup();
    }
  });
});
