import { type ChildProcess, spawn } from 'node:child_process';
import type { ExecutorBoot } from '../../shared/executor-boot.js';
import type { McpBootServer } from '../../shared/mcp-servers.js';
import type { EnforcementLevel, ResolvedPolicy } from '../../shared/policy.js';
import { launcherFor } from '../sandbox/choose-launcher.js';
import type { ExecutorLauncher } from '../sandbox/executor-launch.js';
import { ExecutorChannelError } from './executor-errors.js';
import { type FrameChannel, type FrameHandlers, stdioChannel } from './frame-channel.js';

/** Lines of executor stderr kept to explain an unexpected exit. */
const STDERR_TAIL_LINES = 20;

export interface ExecutorProcessOptions {
  policy: ResolvedPolicy;
  /** How to start it; by default the kernel sandbox, refusing (fail closed) where it cannot be built. */
  launcher?: ExecutorLauncher;
  diagnosticTools?: boolean;
  maxFrameBytes: number;
  /** Each line the executor writes to stderr. */
  onLog?(line: string): void;
  /** See `ExecutorBoot.mcpServer`: it travels in the boot frame, never in argv or the environment. */
  mcpServer?: McpBootServer;
}

export interface ExecutorExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  reason: string;
}

/** A running executor process and the private channel to it. */
export interface ExecutorProcess {
  readonly child: ChildProcess;
  readonly channel: FrameChannel;
  readonly exited: Promise<ExecutorExit>;
  readonly enforcement: EnforcementLevel;
}

/** Executors still running; killed when the harness process exits, so none outlives it. */
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A process-wide concern by nature: whatever created them, no executor survives its harness.
    process.on('exit', () => {
      for (const live of liveChildren) live.kill('SIGKILL');
    });
  }
  liveChildren.add(child);
}

/**
 * Spawns an executor under a policy and hands it its boot frame. The channel
 * is the child's stdin and stdout (socketpairs only the two processes hold);
 * nothing secret travels in argv or the environment.
 */
export async function startExecutorProcess(
  options: ExecutorProcessOptions,
  handlers: Omit<FrameHandlers, 'closed'>,
): Promise<ExecutorProcess> {
  const launcher = options.launcher ?? (await launcherFor(options.policy, 'required'));
  const launch = await launcher(options.policy);
  const child = spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  track(child);
  const stderrTail: string[] = [];
  let stderrRest = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    const lines = (stderrRest + chunk).split('\n');
    stderrRest = lines.pop()!;
    for (const line of lines) {
      options.onLog?.(line);
      stderrTail.push(line);
      if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
    }
  });
  const exited = new Promise<ExecutorExit>((resolve) => {
    child.once('close', (code, signal) => {
      liveChildren.delete(child);
      const tail = stderrTail.length > 0 ? `:\n${stderrTail.join('\n')}` : '';
      const exit = { code, signal, reason: `executor exited (code ${code}, signal ${signal})${tail}` };
      // Cgroups go once the sandbox is gone; a failure to clean up must not hide the exit.
      void (launch.cleanup?.() ?? Promise.resolve()).catch(() => undefined).finally(() => resolve(exit));
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) =>
      reject(new ExecutorChannelError('spawn_failed', `cannot start the executor: ${error.message}`)),
    );
  });
  const channel = stdioChannel(child.stdout!, child.stdin!, options.maxFrameBytes, {
    ...handlers,
    closed: () => undefined,
  });
  const boot: ExecutorBoot = {
    type: 'boot',
    protocol: 1,
    policy: options.policy,
    enforcement: launch.enforcement,
    resourceLimits: launch.resourceLimits,
    commandWrapper: launch.commandWrapper,
    diagnosticTools: options.diagnosticTools ?? false,
    maxFrameBytes: options.maxFrameBytes,
    ...(options.mcpServer && { mcpServer: options.mcpServer }),
  };
  channel.send(JSON.stringify(boot));
  return { child, channel, exited, enforcement: launch.enforcement };
}
