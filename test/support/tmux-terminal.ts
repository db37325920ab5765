import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A real pseudo-terminal (a tmux pane) running one command, for tests of what a person sees and types. */
export interface TmuxTerminal extends AsyncDisposable {
  /** The pane's text as shown now. */
  screen(): Promise<string>;
  /** Keys as tmux names them: literal text, or `Enter`, `C-c`… */
  sendKeys(...keys: string[]): Promise<void>;
  /** Waits until the screen matches, and returns it; throws with the screen after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/**
 * Starts `command` (a shell command line) in a new tmux server of its own, with `env` as its
 * environment. The line `[exit N]` is printed when the command ends, and the pane stays open.
 */
export async function tmuxTerminal(command: string, env: NodeJS.ProcessEnv): Promise<TmuxTerminal> {
  const socket = `skate-test-${randomUUID()}`;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args], { env });
  await tmux(
    'new-session',
    '-d',
    '-s',
    'main',
    '-x',
    '200',
    '-y',
    '50',
    `${command}; echo "[exit $?]"; sleep 600`,
  );
  const screen = async (): Promise<string> => (await tmux('capture-pane', '-p', '-t', 'main')).stdout;
  return {
    screen,
    async sendKeys(...keys) {
      await tmux('send-keys', '-t', 'main', ...keys);
    },
    async waitFor(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = await screen();
        if (pattern.test(text)) return text;
        if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}:\n${text}`);
        await sleep(100);
      }
    },
    async [Symbol.asyncDispose]() {
      await tmux('kill-server').catch(() => {});
    },
  };
}
