import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { BoundedOutput } from './bounded-output.js';
import { COMMAND_MARKER_VAR, type CommandTree, killCommandTree } from './process-tree.js';
import { TextLines } from './text-lines.js';

export type CommandStream = 'stdout' | 'stderr';

export interface RunCommandOptions {
  /** Program and arguments; no shell is involved unless argv names one. */
  argv: readonly [string, ...string[]];
  /**
   * Prepended to argv: skate-confine, which isolates the command from its
   * executor (Landlock) and, as its subreaper, kills everything it started
   * when it ends or is told to stop.
   */
  wrapper?: readonly string[];
  cwd: string;
  /** The whole environment of the command; nothing is inherited. */
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bound on `output` in bytes of UTF-8, truncation notice included. */
  outputCapBytes: number;
  /** Each line as it arrives, without its line ending; lines over 8 KiB come in pieces. */
  onLine?: (stream: CommandStream, text: string) => void;
}

export interface CommandResult {
  /** Null when the command was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  /** stdout and stderr interleaved a line at a time in arrival order; the middle is cut when over the cap. */
  output: string;
  truncated: boolean;
  /** True when processes left behind held the output open after the command exited and were killed. */
  killedBackground: boolean;
  durationMs: number;
}

/** From SIGTERM to SIGKILL. */
const KILL_GRACE_MS = 2000;
/** How long background processes may hold the output open after the command itself exits. */
const STRAGGLER_GRACE_MS = 500;
/** After a kill, how long to wait for the pipes before closing them ourselves. */
const PIPE_DRAIN_MS = 250;

/**
 * Runs a command the way every part of Skate does: stdin closed, output
 * captured and streamed, its own process group, and on timeout or abort the
 * whole tree killed (SIGTERM, then SIGKILL). Never throws for a non-zero exit;
 * throws only when the command cannot be started at all.
 *
 * Background processes that keep the output open are killed shortly after the
 * command exits. Under the `wrapper` (skate-confine, as executors use it) every
 * process the command started ends with it; without one, processes that
 * redirected their output and left the process group can outlive it.
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const started = performance.now();
  const { argv, signal, onLine } = options;
  const output = new BoundedOutput(options.outputCapBytes);
  const finish = (fields: Partial<CommandResult>): CommandResult => ({
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: false,
    output: output.render(),
    truncated: output.truncated,
    killedBackground: false,
    durationMs: Math.round(performance.now() - started),
    ...fields,
  });
  if (signal?.aborted) return finish({ cancelled: true });

  const marker = randomBytes(8).toString('hex');
  const [program, ...args] = [...(options.wrapper ?? []), ...argv] as [string, ...string[]];
  // node:child_process, not execa: nothing here needs more, and importing execa cost ~115 ms on an
  // executor's first command.
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: { ...options.env, [COMMAND_MARKER_VAR]: marker },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own session and process group, so the whole tree can be signalled at once.
    detached: true,
  });
  if (child.pid === undefined) {
    // A failed start has no pid; the reason comes in the 'error' event.
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => child.once('error', resolve));
    throw new Error(`could not start ${argv[0]}: ${error.code ?? error.message}`);
  }
  // Errors after a successful start (a kill of an already-dead child) are not the command's result.
  child.on('error', () => {});
  const tree: CommandTree = { pid: child.pid, marker };

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, exitSignal) => resolve({ code, signal: exitSignal }));
  });
  const streams = [capture(child.stdout!, 'stdout'), capture(child.stderr!, 'stderr')];
  const drained = Promise.all(streams.map((stream) => stream.closed));

  let timedOut = false;
  let cancelled = false;
  let killing: Promise<void> | undefined;
  const kill = () => {
    killing ??= killCommandTree(tree, KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    kill();
  };
  signal?.addEventListener('abort', onAbort, { once: true });

  try {
    const exit = await exited;
    clearTimeout(timer);
    let killedBackground = false;
    if (!killing && !(await within(drained, STRAGGLER_GRACE_MS))) {
      killedBackground = true;
      kill();
    }
    if (killing) {
      await killing;
      // A process that escaped the kill may still hold the pipes; stop reading rather than wait on it.
      if (!(await within(drained, PIPE_DRAIN_MS))) for (const stream of streams) stream.destroy();
    }
    await drained;
    for (const stream of streams) stream.flush();
    return finish({
      exitCode: exit.code,
      signal: exit.signal,
      timedOut,
      cancelled,
      killedBackground,
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }

  function capture(stream: Readable, name: CommandStream) {
    const decoder = new StringDecoder('utf8');
    const lines = new TextLines((text) => onLine?.(name, text));
    let flushed = false;
    /** Takes what is left of an unterminated last line once the stream is done. */
    const flush = () => {
      if (flushed) return;
      flushed = true;
      output.append(lines.push(decoder.end()));
      const rest = lines.end();
      if (rest.length > 0) output.append(`${rest}\n`);
    };
    stream.on('data', (chunk: Buffer) => output.append(lines.push(decoder.write(chunk))));
    stream.once('end', flush);
    return {
      closed: new Promise<void>((resolve) => stream.once('close', resolve)),
      destroy: () => stream.destroy(),
      flush,
    };
  }
}

/** Whether `promise` settles within `ms`; the timer is cleared either way. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}
