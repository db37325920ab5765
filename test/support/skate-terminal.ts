import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { distPath } from '../../harness/project-paths.js';
import { type FakeMessagesApi, type FakeReply, fakeMessagesApi } from './fake-messages-api.js';
import { hostDir } from './host-dir.js';
import { commandLine, processDescendants } from './process-descendants.js';
import { eventually, isAlive } from './processes.js';
import { type TempDir, tempDir } from './temp-dir.js';
import { type TmuxTerminal, tmuxTerminal } from './tmux-terminal.js';

export interface SkateTerminalOptions {
  /** What the fake Messages API answers, in order. */
  replies: FakeReply[];
  columns: number;
  rows?: number;
  /** More `skate` arguments (`--approval ask`). */
  args?: string[];
  /** Files written into the workspace first, by relative path. */
  files?: Record<string, string>;
  /** More environment for skate (`EDITOR`). */
  env?: Record<string, string>;
  /** Keep session logs (`.skate/sessions/`); off by default (`--no-session`). */
  sessions?: boolean;
  /** tmux lets the pane set the clipboard, rename the window, pass sequences through (`tmuxTerminal`). */
  permissive?: boolean;
  /** Run in this workspace (an earlier terminal's, to resume its session) instead of a new one; left in place. */
  workspace?: string;
}

/** How skate left the terminal, as the pane's shell saw it after skate exited. */
export interface TerminalExit {
  status: number;
  /** `stty` reports echo on: the terminal is cooked again. */
  echo: boolean;
  /** The pane still shows the alternate screen. */
  alternateScreen: boolean;
}

export interface SkateTerminal extends AsyncDisposable {
  readonly terminal: TmuxTerminal;
  readonly api: FakeMessagesApi;
  /** The workspace, on the host outside /tmp (sandboxes get a private /tmp), so host checks see what landed. */
  readonly workspace: string;
  /** skate's own HOME: no person's settings or caches leak in. */
  readonly home: string;
  /** The pid of skate's node process (while it runs). */
  skatePid(): Promise<number | undefined>;
  /** Waits for skate to exit and reports how it left the terminal. */
  exited(timeoutMs?: number): Promise<TerminalExit>;
  /**
   * Esc, then waits until the status bar says NORMAL. Keys sent before the UI
   * has read the Esc arrive with it in one read and parse as Alt-<key>, so
   * every step after Esc waits for the screen rather than for a fixed time.
   */
  normal(): Promise<void>;
  /** From NORMAL, `Space key` in one write (outside the prompt the UI takes a chunk key by key). */
  chord(key: string): Promise<void>;
  /** Types `text` into the prompt (INSERT first), and sends it once the prompt shows it whole. */
  send(text: string): Promise<void>;
  /** `:line` and Enter, from NORMAL, once the command line shows it. */
  command(line: string): Promise<void>;
}

const APP_MODEL = 'claude-sonnet-4-5';

/**
 * `skate` (the built CLI) in a real terminal: a tmux pane of the given size
 * running it against the local fake Messages API, in a fresh workspace with
 * its own HOME. After skate exits, the pane's shell prints its exit status and
 * whether the terminal echoes again, then waits, so the screen stays readable.
 * Disposing kills the tmux server, waits until every process the pane started
 * is gone (killing any that linger), and removes the directories.
 */
export async function skateTerminal(options: SkateTerminalOptions): Promise<SkateTerminal> {
  const dirs: TempDir[] = [];
  const api = await fakeMessagesApi(options.replies);
  let terminal: TmuxTerminal | undefined;
  let shellPid: number | undefined;
  const dispose = async (): Promise<void> => {
    const below = shellPid === undefined ? [] : await processDescendants(shellPid);
    await terminal?.[Symbol.asyncDispose]();
    // tmux hangs the pane up; skate restores the terminal and exits on SIGHUP. Anything still there after that leaked.
    const left = [...below, ...(shellPid === undefined ? [] : [shellPid])];
    const gone = await eventually(
      async () => (await Promise.all(left.map(isAlive))).every((alive) => !alive),
      10_000,
    );
    const leaked: string[] = [];
    if (!gone) {
      for (const pid of left) {
        if (!(await isAlive(pid))) continue;
        leaked.push(`${pid} ${await commandLine(pid)}`);
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
      }
    }
    await api[Symbol.asyncDispose]();
    for (const dir of dirs.reverse()) await dir[Symbol.asyncDispose]();
    if (leaked.length > 0) throw new Error(`processes outlived the terminal (killed): ${leaked.join('; ')}`);
  };
  try {
    let workspace: { path: string };
    if (options.workspace !== undefined) {
      workspace = { path: options.workspace };
    } else {
      const made = await hostDir('tui-e2e-');
      dirs.push(made);
      workspace = made;
    }
    const home = await tempDir('skate-home-');
    dirs.push(home);
    for (const [relative, content] of Object.entries(options.files ?? {})) {
      const file = path.join(workspace.path, relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
    }
    const skate = [
      'node',
      distPath('cli', 'skate.js'),
      '--model',
      APP_MODEL,
      ...(options.sessions ? [] : ['--no-session']),
      '--workspace',
      workspace.path,
      ...(options.args ?? []),
    ]
      .map(shellQuote)
      .join(' ');
    terminal = await tmuxTerminal({
      // After skate: its exit status, and `echo` or `-echo` from stty (is the terminal cooked again?).
      command: `${skate}; echo "EXITED $?"; stty -a | tr ' ' '\\n' | grep -x -- '-\\?echo'; sleep 600`,
      env: {
        HOME: home.path,
        ANTHROPIC_API_KEY: 'sk-ant-test-key',
        ANTHROPIC_BASE_URL: api.url,
        EDITOR: 'true',
        ...options.env,
      },
      columns: options.columns,
      rows: options.rows ?? 30,
      ...(options.permissive && { permissive: true }),
    });
    shellPid = await terminal.panePid();
    const tmux = terminal;
    const shell = shellPid;
    /** The status bar starts with this mode (no other row starts with a space and a capital). */
    const inMode = (mode: string) => new RegExp(`^ ${mode} `, 'm');
    const normal = async (): Promise<void> => {
      await tmux.keys('Escape');
      await tmux.waitFor(inMode('NORMAL'));
    };
    return {
      terminal: tmux,
      api,
      workspace: workspace.path,
      home: home.path,
      async skatePid() {
        for (const pid of await processDescendants(shell)) {
          if ((await commandLine(pid)).includes('skate.js')) return pid;
        }
        return undefined;
      },
      async exited(timeoutMs = 30_000) {
        const screen = await tmux.waitFor(/EXITED (\d+)\n(-?echo)\n/, timeoutMs);
        const [, status, echo] = /EXITED (\d+)\n(-?echo)\n/.exec(screen)!;
        return {
          status: Number(status),
          echo: echo === 'echo',
          alternateScreen: await tmux.alternateScreen(),
        };
      },
      normal,
      async chord(key) {
        await normal();
        await tmux.type(` ${key}`);
      },
      async send(text) {
        if (!inMode('INSERT').test(await tmux.screen())) {
          await tmux.keys('i');
          await tmux.waitFor(inMode('INSERT'));
        }
        await tmux.type(text);
        // The prompt row, right above the status bar, holds the whole text (a one-line prompt).
        await tmux.waitFor(new RegExp(`› ${escapeRegExp(text)} ?\\n INSERT `));
        await tmux.keys('Enter');
      },
      async command(line) {
        await normal();
        await tmux.type(`:${line}`);
        await tmux.waitFor(new RegExp(`\\n:${escapeRegExp(line)} ?\\n COMMAND `));
        await tmux.keys('Enter');
      },
      [Symbol.asyncDispose]: dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
