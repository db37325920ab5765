import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** True when tmux is installed (setup installs it; without it the terminal tests are skipped). */
export async function hasTmux(): Promise<boolean> {
  return run('tmux', ['-V']).then(
    () => true,
    () => false,
  );
}

export interface TmuxTerminal extends AsyncDisposable {
  /** Types text literally (no key names), one write. */
  type(text: string): Promise<void>;
  /** Sends tmux key names (`Enter`, `Escape`, `C-c`, `Space`), with a pause after each so they arrive as separate keys. */
  keys(...names: string[]): Promise<void>;
  /** The screen as text, one string per row. */
  screen(): Promise<string>;
  /** Waits until the screen matches; throws with the last screen when it does not in time. */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
  /** Whether the pane shows the alternate screen now. */
  alternateScreen(): Promise<boolean>;
  /** The pid of the shell running the command. */
  panePid(): Promise<number>;
  /** A tmux format (`#{pane_title}`, `#{window_name}`) expanded for the pane. */
  format(format: string): Promise<string>;
  /** tmux's paste buffers, one `name: sample` each: where an OSC 52 clipboard write lands. */
  buffers(): Promise<string[]>;
  /** The pane's history and screen as text (what a person scrolls back through), one string per row. */
  history(): Promise<string>;
  /** From now on, appends every byte the program writes to the pane to `file` (tmux pipe-pane). */
  pipeOutput(file: string): Promise<void>;
}

/**
 * A real terminal for end-to-end tests: a detached tmux session on its own
 * server socket (so tests never touch a person's tmux), running `command`
 * through sh with `env` set, at `columns` × `rows`.
 */
export async function tmuxTerminal(options: {
  command: string;
  env: Record<string, string>;
  columns: number;
  rows: number;
  /**
   * Lets programs in the pane do what hostile sequences aim at: set the clipboard (tmux keeps it
   * as a paste buffer), rename the window, pass sequences through to the outer terminal.
   */
  permissive?: boolean;
}): Promise<TmuxTerminal> {
  const socket = `skate-e2e-${randomUUID().slice(0, 8)}`;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args]);
  const envArgs = Object.entries(options.env).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
  // Set before the session starts, so the command's first bytes already meet them.
  const permissive = options.permissive
    ? [
        ...['start-server', ';'],
        ...['set-option', '-s', 'set-clipboard', 'on', ';'],
        ...['set-option', '-g', 'allow-rename', 'on', ';'],
        ...['set-option', '-g', 'allow-passthrough', 'on', ';'],
      ]
    : [];
  await tmux(
    ...permissive,
    'new-session',
    '-d',
    '-x',
    String(options.columns),
    '-y',
    String(options.rows),
    '-s',
    'main',
    ...envArgs,
    options.command,
  );
  const pause = () => new Promise((resolve) => setTimeout(resolve, 200));
  const terminal: TmuxTerminal = {
    async type(text) {
      await tmux('send-keys', '-t', 'main', '-l', text);
      await pause();
    },
    async keys(...names) {
      for (const name of names) {
        await tmux('send-keys', '-t', 'main', name);
        await pause();
      }
    },
    async screen() {
      return (await tmux('capture-pane', '-p', '-t', 'main')).stdout;
    },
    async waitFor(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < deadline) {
        last = await terminal.screen();
        if (typeof pattern === 'string' ? last.includes(pattern) : pattern.test(last)) return last;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`the screen never showed ${String(pattern)}; it shows:\n${last}`);
    },
    async alternateScreen() {
      return (await tmux('display-message', '-p', '-t', 'main', '#{alternate_on}')).stdout.trim() === '1';
    },
    async panePid() {
      return Number(await terminal.format('#{pane_pid}'));
    },
    async format(format) {
      return (await tmux('display-message', '-p', '-t', 'main', format)).stdout.replace(/\n$/, '');
    },
    async buffers() {
      const { stdout } = await tmux('list-buffers', '-F', '#{buffer_name}: #{buffer_sample}');
      return stdout.split('\n').filter((line) => line !== '');
    },
    async history() {
      return (await tmux('capture-pane', '-p', '-S', '-', '-t', 'main')).stdout;
    },
    async pipeOutput(file) {
      await tmux('pipe-pane', '-o', '-t', 'main', `cat >> '${file.replaceAll("'", "'\\''")}'`);
    },
    async [Symbol.asyncDispose]() {
      await tmux('kill-server').catch(() => undefined);
    },
  };
  return terminal;
}
