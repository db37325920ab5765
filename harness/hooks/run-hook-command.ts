import { spawn } from 'node:child_process';
import type { CommandLaunch } from '../sandbox/launch-command.js';

/** Each stream of a hook is kept up to this much; the rest is dropped (and said). */
const OUTPUT_CAP = 64 * 1024;

export type HookProcessResult =
  | { status: 'exited'; exitCode: number; stdout: string; stderr: string; durationMs: number }
  | { status: 'timeout' | 'failed' | 'cancelled'; message: string; stderr: string; durationMs: number };

export interface RunHookCommandOptions {
  /** Prepares the sandbox the command starts in; its argv already ends with the command. */
  launch(): Promise<CommandLaunch>;
  cwd: string;
  /** The event as JSON, written to the command's stdin. */
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Variables set for the command besides what its policy passes (CLAUDE_PROJECT_DIR). */
  env: Record<string, string>;
}

/**
 * Runs one hook command to its end: its sandbox prepared, the event on stdin, stdout and stderr
 * kept (bounded), killed with its whole process group (and so its sandbox) at the timeout or when
 * the run is interrupted, and the sandbox's cgroups released once it is gone. Never throws.
 */
export async function runHookCommand(options: RunHookCommandOptions): Promise<HookProcessResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  let launch: CommandLaunch;
  try {
    launch = await options.launch();
  } catch (error) {
    return { status: 'failed', message: (error as Error).message, stderr: '', durationMs: elapsed() };
  }
  try {
    const [program, ...args] = launch.argv;
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: { ...launch.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so a timeout kills whatever it started with it.
      detached: true,
    });
    const stdout = collect();
    const stderr = collect();
    child.stdout.on('data', stdout.add);
    child.stderr.on('data', stderr.add);
    // A hook that never reads stdin closes it early: that is not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin);
    let ended: 'timeout' | 'cancelled' | undefined;
    const kill = (why: 'timeout' | 'cancelled') => {
      ended ??= why;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => kill('timeout'), options.timeoutMs);
    const onAbort = () => kill('cancelled');
    options.signal.addEventListener('abort', onAbort, { once: true });
    if (options.signal.aborted) onAbort();
    const closed = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | Error>(
      (resolve) => {
        child.once('error', (error) => resolve(error));
        child.once('close', (code, signal) => resolve({ code, signal }));
      },
    );
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
    if (closed instanceof Error)
      return { status: 'failed', message: closed.message, stderr: stderr.text(), durationMs: elapsed() };
    if (ended === 'timeout') {
      const message = `timed out after ${Math.round(options.timeoutMs / 100) / 10} s and was killed`;
      return { status: 'timeout', message, stderr: stderr.text(), durationMs: elapsed() };
    }
    if (ended === 'cancelled')
      return { status: 'cancelled', message: 'the run was interrupted', stderr: '', durationMs: elapsed() };
    if (closed.code === null) {
      const message = `was killed by ${closed.signal ?? 'a signal'}`;
      return { status: 'failed', message, stderr: stderr.text(), durationMs: elapsed() };
    }
    return {
      status: 'exited',
      exitCode: closed.code,
      stdout: stdout.text(),
      stderr: stderr.text(),
      durationMs: elapsed(),
    };
  } catch (error) {
    return { status: 'failed', message: (error as Error).message, stderr: '', durationMs: elapsed() };
  } finally {
    await launch.release().catch(() => undefined);
  }
}

function collect(): { add(chunk: Buffer): void; text(): string } {
  const chunks: Buffer[] = [];
  let size = 0;
  let dropped = false;
  return {
    add(chunk) {
      const room = OUTPUT_CAP - size;
      if (chunk.length > room) dropped = true;
      if (room <= 0) return;
      chunks.push(chunk.subarray(0, room));
      size += Math.min(chunk.length, room);
    },
    text() {
      const text = Buffer.concat(chunks).toString('utf8');
      return dropped ? `${text}\n[… output cut at ${OUTPUT_CAP} bytes]` : text;
    },
  };
}
