import { setTimeout as sleep } from 'node:timers/promises';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { median, round } from './stats.js';

const RUNS = 7;
/**
 * Between listing tools and the first tool call an agent waits for its model's first response:
 * time to first token and the tool_use block, rarely under half a second against the real API.
 */
const MODEL_GAP_MS = 500;

export interface FirstShellFigures {
  /** `echo hi` through the shell tool, the first call on a fresh executor, in an agent's order: listTools, the model's gap, the call. */
  shell_first_ms: number;
  /** The same command, the next call on that executor. */
  shell_second_ms: number;
  shell_first_vs_second: number;
  /** The first call made the moment the executor is ready (listTools answered), with no gap. */
  shell_first_at_once_ms: number;
  shell_first_at_once_vs_second: number;
}

async function timedCall(executor: ExecutorClient): Promise<number> {
  const start = performance.now();
  const result = await executor.callTool('shell', { command: 'echo hi' });
  if (result.isError) throw new Error(`bench shell call failed: ${result.output}`);
  return performance.now() - start;
}

/**
 * First against second shell call on fresh sandboxed executors, in both orders: as an agent
 * makes it (`ExecutorClient.spawn` lists the tools; then the model's gap) and at once.
 */
export async function benchFirstShell(policy: ResolvedPolicy): Promise<FirstShellFigures> {
  const first: number[] = [];
  const atOnce: number[] = [];
  const second: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const gap of [MODEL_GAP_MS, 0]) {
      const executor = await ExecutorClient.spawn({ policy });
      try {
        if (gap > 0) await sleep(gap);
        (gap > 0 ? first : atOnce).push(await timedCall(executor));
        second.push(await timedCall(executor));
      } finally {
        await executor.shutdown();
      }
    }
  }
  const secondMs = median(second);
  return {
    shell_first_ms: round(median(first)),
    shell_second_ms: round(secondMs),
    shell_first_vs_second: round(median(first) / secondMs, 2),
    shell_first_at_once_ms: round(median(atOnce)),
    shell_first_at_once_vs_second: round(median(atOnce) / secondMs, 2),
  };
}
