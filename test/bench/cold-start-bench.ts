import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import type { ExecutorLauncher } from '../../harness/sandbox/executor-launch.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { processDescendants } from '../support/process-descendants.js';
import { median, round } from './stats.js';

const RUNS = 15;
const RSS_RUNS = 5;
/** As in the first-shell bench: an agent's model thinks this long after listTools, while the executor warms up. */
const IDLE_MS = 500;

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
  /** VmRSS of an idle executor's whole process tree (bubblewrap included), listTools answered and warm-up done. */
  executor_idle_rss_mb: number;
}

/** Sum of VmRSS over a process and everything below it, in MiB. */
async function treeRssMb(pid: number): Promise<number> {
  let kb = 0;
  for (const p of [pid, ...(await processDescendants(pid))]) {
    const status = await readFile(`/proc/${p}/status`, 'utf8').catch(() => '');
    kb += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  }
  return kb / 1024;
}

async function idleRssMb(policy: ResolvedPolicy, launcher: ExecutorLauncher | undefined): Promise<number> {
  const executor = await ExecutorClient.spawn({ policy, ...(launcher && { launcher }) });
  try {
    await sleep(IDLE_MS);
    return await treeRssMb(executor.pid!);
  } finally {
    await executor.shutdown();
  }
}

/**
 * Spawn → `listTools` answered, against `node -e 0`, alternating so both see the same machine;
 * and what an idle executor holds in memory.
 */
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
  const rss: number[] = [];
  for (let i = 0; i < RSS_RUNS; i++) rss.push(await idleRssMb(policy, launcher));
  return {
    cold_start_ms: round(median(cold)),
    node_start_ms: round(median(node)),
    cold_start_vs_node: round(median(cold) / median(node), 2),
    executor_idle_rss_mb: round(median(rss)),
  };
}
