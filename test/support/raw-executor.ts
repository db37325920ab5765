import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { distPath } from '../../harness/project-paths.js';
import type { ExecutorBoot } from '../../shared/executor-boot.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { transformer } from '../../shared/trpc.js';

/**
 * An executor process driven frame by frame, to test what a well-behaved
 * client never sends: malformed, oversized and foreign frames.
 */
export interface RawExecutor extends AsyncDisposable {
  readonly child: ChildProcessWithoutNullStreams;
  send(frame: string): void;
  /** Sends a tRPC request frame with a superjson-encoded input. */
  request(id: number, method: 'query' | 'mutation', path: string, input?: unknown): void;
  /** The next frame from the executor, parsed. */
  next(timeoutMs?: number): Promise<Record<string, unknown>>;
}

export async function rawExecutor(
  policy: ResolvedPolicy,
  maxFrameBytes = 1024 * 1024,
  /** The argv prefix commands run under (skate-confine in a real executor); none by default. */
  commandWrapper: string[] = [],
): Promise<RawExecutor> {
  const child = spawn(process.execPath, [distPath('executor', 'bundle', 'executor.js')], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '' },
    cwd: policy.workspace,
  });
  const frames: Record<string, unknown>[] = [];
  const waiters: ((frame: Record<string, unknown>) => void)[] = [];
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      const frame = JSON.parse(line) as Record<string, unknown>;
      const waiter = waiters.shift();
      if (waiter) waiter(frame);
      else frames.push(frame);
    }
  });
  const boot: ExecutorBoot = {
    type: 'boot',
    protocol: 1,
    policy,
    enforcement: 'none',
    resourceLimits: 'none',
    commandWrapper,
    diagnosticTools: true,
    maxFrameBytes,
  };
  child.stdin.write(`${JSON.stringify(boot)}\n`);
  const send = (frame: string) => child.stdin.write(`${frame}\n`);
  return {
    child,
    send,
    request(id, method, path, input) {
      send(JSON.stringify({ id, method, params: { path, input: transformer.serialize(input) } }));
    },
    next(timeoutMs = 5_000) {
      const queued = frames.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no frame from the executor')), timeoutMs);
        waiters.push((frame) => {
          clearTimeout(timer);
          resolve(frame);
        });
      });
    },
    async [Symbol.asyncDispose]() {
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null)
        await new Promise((r) => child.once('close', r));
    },
  };
}

/** Decodes the superjson-encoded error of an error frame. */
export function frameError(frame: Record<string, unknown>): { message: string; data: { skateCode: string } } {
  return transformer.deserialize(frame.error as never);
}

/** Decodes the superjson-encoded data of a result frame. */
export function frameData(frame: Record<string, unknown>): unknown {
  return transformer.deserialize((frame.result as { data: never }).data);
}
