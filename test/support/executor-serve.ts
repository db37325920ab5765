import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { distPath } from '../../harness/project-paths.js';

export const EXECUTOR_TOKEN = 'executor-serve-test-token-0123456789';

/** A `skate executor serve` child process, from the built CLI, on a free port. */
export interface ExecutorServe extends AsyncDisposable {
  /** `ws://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  stderr(): string;
  /** Resolves to the exit code (or signal name) once the process has exited. */
  exited(): Promise<number | string>;
}

export async function startExecutorServe(
  workspace: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ExecutorServe> {
  const child = spawn(
    process.execPath,
    [
      distPath('cli', 'skate.js'),
      'executor',
      'serve',
      '--listen',
      '127.0.0.1:0',
      '--workspace',
      workspace,
      ...args,
    ],
    { env: { SKATE_EXECUTOR_TOKEN: EXECUTOR_TOKEN, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    // A flood is logged in summaries, but keep the tail only.
    stderr = (stderr + chunk).slice(-200_000);
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`executor serve did not start:\n${stderr}`)), 20_000);
    const look = (): void => {
      const match = /serving (ws:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        child.stderr!.off('data', look);
        resolve(match[1]!);
      }
    };
    child.stderr!.on('data', look);
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`executor serve exited (${code}) before listening:\n${stderr}`));
    });
  });
  const code = async (): Promise<number | string> => {
    const [exit, by] = await exited;
    return exit ?? by ?? 'unknown';
  };
  return {
    url,
    port: Number(new URL(url).port),
    child,
    stderr: () => stderr,
    exited: code,
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await code();
      clearTimeout(timer);
    },
  };
}
