import path from 'node:path';
import { McpServerHandle } from '../../harness/mcp/mcp-server-handle.js';
import { projectRoot } from '../../harness/project-paths.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { median, round } from './stats.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const COLD_RUNS = 5;
const WARM_CALLS = 50;

/**
 * What a configured server costs before and at its first call (#22, lazy start): with its manifest
 * remembered, a handle offers its tools without starting anything; its first call then pays the
 * start (executor, server, listing) on top of the call, against a warm call of the same tool.
 */
export async function benchMcpLazyStart(policy: ResolvedPolicy): Promise<object> {
  const handleFor = (): McpServerHandle =>
    new McpServerHandle({
      name: 'bench-lazy',
      config: { command: process.execPath, args: [TEST_SERVER] },
      workspace: policy.workspace,
      sandbox: 'required',
      agentPolicy: async () => policy,
      idleMs: 60_000,
      startTimeoutMs: 30_000,
    });
  const signal = new AbortController().signal;
  // Once, so that its manifest is remembered as after a first run.
  const first = handleFor();
  await first.discover();
  await first.stop();

  const recallMs: number[] = [];
  const firstCallMs: number[] = [];
  const warmCallMs: number[] = [];
  let startedBeforeCall = false;
  for (let run = 0; run < COLD_RUNS; run++) {
    const handle = handleFor();
    try {
      let start = performance.now();
      const tools = await handle.recall();
      recallMs.push(performance.now() - start);
      if (!tools || handle.state().status !== 'known') startedBeforeCall = true;
      start = performance.now();
      await handle.call('echo', { text: 'x' }, signal);
      firstCallMs.push(performance.now() - start);
      for (let i = 0; i < WARM_CALLS; i++) {
        start = performance.now();
        await handle.call('echo', { text: 'x' }, signal);
        warmCallMs.push(performance.now() - start);
      }
    } finally {
      await handle.stop();
    }
  }
  return {
    configuredCostMs: round(median(recallMs), 2),
    startedBeforeFirstCall: startedBeforeCall,
    firstCallMs: round(median(firstCallMs), 0),
    warmCallMs: round(median(warmCallMs), 3),
    firstCallOverWarm: round(median(firstCallMs) / median(warmCallMs), 0),
  };
}
