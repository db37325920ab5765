import { spawnSync } from 'node:child_process';
import { render } from 'ink';
import type { Message } from '../../shared/conversation.js';
import type { AgentBackend } from './agent-backend.js';
import { conversationRows } from './components/screen.js';
import { BlockLineCache } from './render/line-cache.js';
import { createRowDiffOutput } from './row-diff-output.js';
import { scrollbackText } from './scrollback-text.js';
import { TuiApp } from './tui-app.js';
import { TuiController } from './tui-controller.js';
import { createUiReducer } from './ui-reducer.js';
import { initialUiState } from './ui-state.js';

/**
 * How Ink draws the UI. Ink's own frame cap is set far above 60/s so that a
 * key is drawn at once instead of waiting for the next 60 Hz slot (it waited up
 * to 17 ms while a reply streamed); the cap on streaming frames is the
 * controller's: engine events are applied at most once per EVENT_BATCH_MS.
 */
export const INK_RENDER_OPTIONS = {
  exitOnCtrlC: false,
  maxFps: 1_000,
  incrementalRendering: true,
} as const;

const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[H';
const LEAVE_ALT_SCREEN = '\x1b[?1049l';
const SHOW_CURSOR = '\x1b[?25h';
const HIDE_CURSOR = '\x1b[?25l';

export interface RunTuiOptions {
  backend: AgentBackend;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  now?: () => number;
  /** Told of every agent the UI switches to (plan, execute, fork), so the caller closes the last one. */
  onBackend?: (backend: AgentBackend) => void;
  /** Sent as the first prompt once the UI is up (`skate "task"` on a terminal). */
  initialPrompt?: string | undefined;
  /** The plan file (created if missing) for `Space e`; without it there is no plan editing. */
  planFile?: () => Promise<{ file: string; read: () => Promise<string> }>;
  /** A sub-agent's recorded conversation for its replay (agent tree, Enter); without it there is none. */
  subAgentConversation?: (sessionId: string, parentCallId: string) => Promise<Message[]>;
}

/**
 * Runs the full-screen UI until the person quits: the alternate screen is
 * entered once and left on every way out (quit, an exception, SIGTERM, SIGHUP),
 * with the cursor shown and the terminal's mode restored by Ink's unmount.
 * Resolves when the UI is gone; the caller closes the backend.
 */
export async function runTui(options: RunTuiOptions): Promise<void> {
  const stdout = options.stdout ?? process.stdout;
  const stdin = options.stdin ?? process.stdin;
  const now = options.now ?? Date.now;
  const cache = new BlockLineCache();
  /** Ink's frames, reduced to the rows that changed; held while the conversation is in the scrollback. */
  const output = createRowDiffOutput(stdout);
  let unmount: () => void = () => {};
  const controller = new TuiController({
    backend: options.backend,
    reduce: createUiReducer(cache.metrics(conversationRows)),
    initial: initialUiState({
      now: now(),
      columns: stdout.columns || 80,
      rows: stdout.rows || 24,
      model: options.backend.model,
      activity: options.backend.activity.kind,
      approval: options.backend.approval,
      about: { workspace: options.backend.workspace, policy: options.backend.policy?.name },
      ...(options.backend.sessionId !== undefined && { sessionId: options.backend.sessionId }),
    }),
    now,
    onExit: () => unmount(),
    ...(options.onBackend && { onBackend: options.onBackend }),
    ...(options.planFile && { editPlan: () => editPlan(options.planFile!) }),
    ...(options.subAgentConversation && { subAgentConversation: options.subAgentConversation }),
    scrollback: {
      show: (state) => {
        output.hold();
        stdout.write(`${LEAVE_ALT_SCREEN}${SHOW_CURSOR}${scrollbackText(state, cache)}`);
      },
      back: () => {
        stdout.write(ENTER_ALT_SCREEN + HIDE_CURSOR);
        output.release();
      },
    },
  });
  let clearScreen: () => void = () => {};

  /** `$EDITOR` on the real terminal: the UI steps aside (main screen, cooked mode), then comes back redrawn. */
  const editPlan = async (planFile: NonNullable<RunTuiOptions['planFile']>): Promise<void> => {
    const { file, read } = await planFile();
    const editor = process.env.EDITOR?.trim() || 'vi';
    stdout.write(LEAVE_ALT_SCREEN + SHOW_CURSOR);
    if (stdin.isTTY) stdin.setRawMode(false);
    // Through sh, as git does: EDITOR may carry arguments ("code --wait"). Synchronous, so Ink reads no key meanwhile.
    const edited = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit' });
    if (stdin.isTTY) stdin.setRawMode(true);
    stdout.write(ENTER_ALT_SCREEN);
    clearScreen();
    if (edited.error || edited.status !== 0) {
      controller.dispatch({ type: 'flash', text: `the editor ${editor} failed`, now: now() });
      return;
    }
    const text = await read();
    controller.dispatch({
      type: 'overlay',
      overlay: {
        type: 'message',
        title: `${file} (any key closes)`,
        lines: text.trimEnd().split('\n').slice(0, 40),
      },
    });
  };

  let restored = false;
  const restore = (): void => {
    if (restored) return;
    restored = true;
    controller.stop();
    try {
      if (stdin.isTTY) stdin.setRawMode(false);
    } catch {
      // A terminal that went away cannot be restored.
    }
    stdout.write(SHOW_CURSOR + LEAVE_ALT_SCREEN);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    unmount();
    restore();
    // The conventional exit status of a process ended by a signal.
    process.exit(128 + (signal === 'SIGTERM' ? 15 : signal === 'SIGHUP' ? 1 : 2));
  };
  const onCrash = (error: unknown): void => {
    unmount();
    restore();
    process.stderr.write(
      `skate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('uncaughtException', onCrash);
  process.on('exit', restore);

  stdout.write(ENTER_ALT_SCREEN);
  try {
    const instance = render(<TuiApp controller={controller} cache={cache} now={now} />, {
      stdout: output.stdout,
      stdin,
      patchConsole: true,
      ...INK_RENDER_OPTIONS,
    });
    unmount = () => instance.unmount();
    clearScreen = () => {
      output.invalidate();
      instance.clear();
    };
    controller.start();
    if (options.initialPrompt?.trim()) {
      controller.dispatch({ type: 'submit', text: options.initialPrompt, now: now() });
    }
    await instance.waitUntilExit();
  } finally {
    restore();
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    process.off('uncaughtException', onCrash);
    process.off('exit', restore);
  }
}
