import { loadavg } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpServerHandle } from '../../harness/mcp/mcp-server-handle.js';
import { projectRoot } from '../../harness/project-paths.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { median, round } from './stats.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const CALLS = 400;
const WARM = 20;
/** Calls of each path timed right after its server started, before any warm-up: what a session's few calls cost. */
const COLD_CALLS = 20;

/**
 * The two paths' calls interleaved (one of each, in turn), so that load from whatever else runs on
 * the machine falls on both alike: the ratio is what the bench is for. Which goes first alternates
 * each round: a call made right after the other path's call was measured slower whatever its path.
 */
async function timeInTurn(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  calls: number,
): Promise<{ a: number[]; b: number[] }> {
  const times = { a: [] as number[], b: [] as number[] };
  const timed = async (call: () => Promise<unknown>, into: number[]): Promise<void> => {
    const start = performance.now();
    await call();
    into.push(performance.now() - start);
  };
  for (let i = 0; i < calls; i++) {
    if (i % 2 === 0) {
      await timed(a, times.a);
      await timed(b, times.b);
    } else {
      await timed(b, times.b);
      await timed(a, times.a);
    }
  }
  return times;
}

/**
 * An MCP tool call's round trip through Skate (harness → its executor over tRPC → the SDK's client →
 * the server, confined) against the same call from the SDK's client straight to the same server
 * (unconfined), each with the server already started; and Skate's start of the server (executor + server + listing).
 * Both paths call the same server script with the same arguments; Skate's call also carries a
 * progress token (so that progress reaches the user). The cold figures are each path's first
 * calls after its start; the others follow WARM calls of each. `loadAverage` is the machine's
 * 1-minute load at the end: the ratio grows with it (each extra process hop waits for a CPU).
 */
export async function benchMcp(policy: ResolvedPolicy): Promise<object> {
  const handle = new McpServerHandle({
    name: 'bench',
    config: { command: process.execPath, args: [TEST_SERVER] },
    workspace: policy.workspace,
    sandbox: 'required',
    agentPolicy: async () => policy,
    idleMs: 60_000,
    startTimeoutMs: 30_000,
  });
  const signal = new AbortController().signal;
  const startedAt = performance.now();
  await handle.discover();
  const startMs = performance.now() - startedAt;
  const direct = new Client({ name: 'bench', version: '1' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [TEST_SERVER] }));
  const skateCall = () => handle.call('echo', { text: 'x' }, signal);
  const sdkCall = () => direct.callTool({ name: 'echo', arguments: { text: 'x' } });
  try {
    const cold = await timeInTurn(skateCall, sdkCall, COLD_CALLS);
    for (let i = 0; i < WARM; i++) {
      await skateCall();
      await sdkCall();
    }
    const { a: skate, b: sdk } = await timeInTurn(skateCall, sdkCall, CALLS);
    return {
      mcpCallSkateMs: round(median(skate), 3),
      mcpCallSdkDirectMs: round(median(sdk), 3),
      ratio: round(median(skate) / median(sdk), 2),
      mcpColdCallSkateMs: round(median(cold.a), 3),
      mcpColdCallSdkDirectMs: round(median(cold.b), 3),
      coldRatio: round(median(cold.a) / median(cold.b), 2),
      skateServerSandboxed: true,
      directServerSandboxed: false,
      serverStartThroughSkateMs: round(startMs, 0),
      loadAverage: round(loadavg()[0] ?? 0, 1),
    };
  } finally {
    await direct.close();
    await handle.stop();
  }
}
