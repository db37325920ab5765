import { spawn } from 'node:child_process';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import type { ExecutorLauncher } from '../../harness/sandbox/executor-launch.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { median, round } from './stats.js';

const RUNS = 15;

function nodeStart(): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', () => resolve(performance.now() - start));
  });
}

async function executorStart(
  policy: ResolvedPolicy,
  launcher: ExecutorLauncher | undefined,
): Promise<number> {
  const start = performance.now();
  const executor = await ExecutorClient.spawn({ policy, ...(launcher && { launcher }) });
  const elapsed = performance.now() - start;
  executor.kill();
  return elapsed;
}

export interface ColdStartFigures {
  cold_start_ms: number;
  node_start_ms: number;
  cold_start_vs_node: number;
}

/** Spawn → `listTools` answered, against `node -e 0`, alternating so both see the same machine. */
export async function benchColdStart(
  policy: ResolvedPolicy,
  launcher?: ExecutorLauncher,
): Promise<ColdStartFigures> {
  const cold: number[] = [];
  const node: number[] = [];
  await executorStart(policy, launcher); // warm the page cache
  for (let i = 0; i < RUNS; i++) {
    node.push(await nodeStart());
    cold.push(await executorStart(policy, launcher));
  }
  return {
    cold_start_ms: round(median(cold)),
    node_start_ms: round(median(node)),
    cold_start_vs_node: round(median(cold) / median(node), 2),
  };
}
