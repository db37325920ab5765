import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { median, round } from './stats.js';

const RUNS = 7;

export interface FirstShellFigures {
  /** `echo hi` through the shell tool, the first call on a fresh executor. */
  shell_first_ms: number;
  /** The same command, the next call on that executor. */
  shell_second_ms: number;
  shell_first_vs_second: number;
}

async function timedCall(executor: ExecutorClient): Promise<number> {
  const start = performance.now();
  const result = await executor.callTool('shell', { command: 'echo hi' });
  if (result.isError) throw new Error(`bench shell call failed: ${result.output}`);
  return performance.now() - start;
}

/** First against second shell call on fresh sandboxed executors (the first used to import execa). */
export async function benchFirstShell(policy: ResolvedPolicy): Promise<FirstShellFigures> {
  const first: number[] = [];
  const second: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const executor = await ExecutorClient.spawn({ policy });
    try {
      first.push(await timedCall(executor));
      second.push(await timedCall(executor));
    } finally {
      await executor.shutdown();
    }
  }
  return {
    shell_first_ms: round(median(first)),
    shell_second_ms: round(median(second)),
    shell_first_vs_second: round(median(first) / median(second), 2),
  };
}
