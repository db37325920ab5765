import chalk from 'chalk';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conversationRows } from '../../../harness/tui/components/screen.js';
import { BlockLineCache } from '../../../harness/tui/render/line-cache.js';
import { TuiApp } from '../../../harness/tui/tui-app.js';
import { TuiController } from '../../../harness/tui/tui-controller.js';
import { createUiReducer } from '../../../harness/tui/ui-reducer.js';
import { initialUiState } from '../../../harness/tui/ui-state.js';
import { FakeAgentBackend } from '../../support/fake-agent-backend.js';

let level: typeof chalk.level;
beforeEach(() => {
  level = chalk.level;
  chalk.level = 0;
});
afterEach(() => {
  chalk.level = level;
});

function mount(backend: FakeAgentBackend, now: () => number = Date.now) {
  const cache = new BlockLineCache();
  let exited = false;
  const controller = new TuiController({
    backend,
    reduce: createUiReducer(cache.metrics(conversationRows)),
    initial: initialUiState({ now: now(), columns: 100, rows: 24, model: backend.model }),
    now,
    onExit: () => {
      exited = true;
    },
  });
  const app = render(<TuiApp controller={controller} cache={cache} now={now} />);
  controller.start();
  return {
    app,
    controller,
    exited: () => exited,
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
  // A deadline, not a count of ticks: on a loaded machine a tick takes far longer than 20 ms.
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (check()) return;
    await tick(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the UI against an agent backend', () => {
  it('sends a typed prompt, streams the reply and a tool call, and shows the network the executor reports', async () => {
    const backend = new FakeAgentBackend(async (self) => {
      self.emit({ type: 'turn_start', turn: 1 });
      self.emit({ type: 'text_delta', text: 'Running the ' });
      self.emit({ type: 'text_delta', text: 'tests.' });
      self.emit({ type: 'tool_call_start', id: 'c1', name: 'shell', args: { command: 'npm test' } });
      self.emit({
        type: 'tool_call_result',
        id: 'c1',
        name: 'shell',
        output: 'ok\n',
        isError: false,
        durationMs: 5,
        display: {
          type: 'command',
          command: 'npm test',
          exitCode: 0,
          signal: null,
          durationMs: 5,
          timedOut: false,
          truncated: false,
        },
      });
      self.emit({ type: 'turn_end', turn: 1, reason: 'complete' });
    });
    const ui = mount(backend);
    try {
      await ui.type('run the tests', '\r');
      await until(() => (ui.app.lastFrame() ?? '').includes('shell(npm test) — exit 0'), 'the tool line');
      const screen = ui.app.lastFrame() ?? '';
      expect(backend.prompts).toEqual(['run the tests']);
      expect(screen).toContain('› run the tests');
      expect(screen).toContain('Running the tests.');
      expect(screen).toContain('[ NET: off ]');
    } finally {
      ui.cleanup();
    }
  });

  it('opens on a continued session with its conversation drawn as blocks', async () => {
    const backend = new FakeAgentBackend();
    backend.conversation = [
      { role: 'user', content: [{ type: 'text', text: 'list the files' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Listing them.' },
          { type: 'tool_use', id: 't1', name: 'list_dir', input: { path: '.' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', callId: 't1', output: 'a.ts\nb.ts', isError: false }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Two files.' }] },
    ];
    const ui = mount(backend);
    try {
      await until(() => (ui.app.lastFrame() ?? '').includes('Two files.'), 'the history');
      const screen = ui.app.lastFrame() ?? '';
      expect(screen).toContain('› list the files');
      expect(screen).toContain('Listing them.');
      expect(screen).toContain('▸ list_dir(.) — a.ts');
      expect(ui.controller.current.running).toBe(false);
    } finally {
      ui.cleanup();
    }
  });

  it('Space n flips the network through the backend and the badge follows', async () => {
    const backend = new FakeAgentBackend();
    const ui = mount(backend);
    try {
      await ui.type('\x1b', ' ', 'n');
      await until(() => (ui.app.lastFrame() ?? '').includes('[ NET: on ]'), 'NET: on');
      expect(backend.applied).toEqual([{ type: 'set_network', network: 'on' }]);
    } finally {
      ui.cleanup();
    }
  });

  it('Space shows the chords once their delay is up, even when the timer fires before the clock gets there', async () => {
    // A clock at half speed: every timer fires early by its reckoning, as one counted from a stale
    // loop time does by Date.now's. The popup must still come, with no other event to redraw it.
    const start = Date.now();
    const ui = mount(new FakeAgentBackend(), () => start + (Date.now() - start) / 2);
    try {
      await ui.type('\x1b', ' ');
      await until(() => (ui.app.lastFrame() ?? '').includes('agent tree'), 'the chords popup');
    } finally {
      ui.cleanup();
    }
  });

  it('Space p switches to a planning agent: PLAN in the status bar, events from the new agent', async () => {
    const backend = new FakeAgentBackend();
    const ui = mount(backend);
    try {
      await ui.type('\x1b', ' ', 'p');
      await until(() => (ui.app.lastFrame() ?? '').includes('[ PLAN'), 'PLAN');
      expect(ui.controller.agent).not.toBe(backend);
      (ui.controller.agent as FakeAgentBackend).emit({ type: 'info', message: 'from the planner' });
      await until(() => (ui.app.lastFrame() ?? '').includes('from the planner'), 'the planner event');
    } finally {
      ui.cleanup();
    }
  });

  it('an approval answered with keys reaches the backend; Ctrl-C interrupts a run; Ctrl-C twice quits when idle', async () => {
    const backend = new FakeAgentBackend(async (self, _text, signal) => {
      self.emit({ type: 'turn_start', turn: 1 });
      self.emit({ type: 'tool_call_start', id: 'c1', name: 'shell', args: { command: 'rm x' } });
      const answer = self.waitFor('r1');
      self.emit({
        type: 'approval_request',
        requestId: 'r1',
        callId: 'c1',
        name: 'shell',
        args: { command: 'rm x' },
        effect: 'execute',
      });
      await answer;
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      self.emit({ type: 'turn_end', turn: 1, reason: 'cancelled' });
    });
    const ui = mount(backend);
    try {
      await ui.type('go', '\r');
      await until(() => (ui.app.lastFrame() ?? '').includes('? allow this command'), 'the approval');
      await ui.type('3', 'not that', '\r');
      expect(backend.answers).toEqual([
        { type: 'approval_response', requestId: 'r1', decision: 'reject', feedback: 'not that' },
      ]);
      await ui.type('\x03');
      await until(() => backend.interrupts === 1, 'the interrupt');
      await until(() => !ui.controller.current.running, 'the run to end');
      expect(ui.exited()).toBe(false);
      await ui.type('\x03', '\x03');
      expect(ui.exited()).toBe(true);
    } finally {
      ui.cleanup();
    }
  });
});
