import { render } from 'ink';
import type { AgentBackend } from './agent-backend.js';
import { conversationRows } from './components/screen.js';
import { BlockLineCache } from './render/line-cache.js';
import { TuiApp } from './tui-app.js';
import { TuiController } from './tui-controller.js';
import { createUiReducer } from './ui-reducer.js';
import { initialUiState } from './ui-state.js';

const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[H';
const LEAVE_ALT_SCREEN = '\x1b[?1049l';
const SHOW_CURSOR = '\x1b[?25h';

export interface RunTuiOptions {
  backend: AgentBackend;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  now?: () => number;
  editPlan?: () => Promise<void>;
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
      ...(options.backend.sessionId !== undefined && { sessionId: options.backend.sessionId }),
    }),
    now,
    onExit: () => unmount(),
    ...(options.editPlan && { editPlan: options.editPlan }),
  });

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
      stdout,
      stdin,
      exitOnCtrlC: false,
      patchConsole: true,
      maxFps: 60,
      incrementalRendering: true,
    });
    unmount = () => instance.unmount();
    controller.start();
    await instance.waitUntilExit();
  } finally {
    restore();
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    process.off('uncaughtException', onCrash);
    process.off('exit', restore);
  }
}
