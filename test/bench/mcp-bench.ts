import { loadavg } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpServerHandle } from '../../harness/mcp/mcp-server-handle.js';
import { projectRoot } from '../../harness/project-paths.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { median, round } from './stats.js';
import { timeInTurn } from './time-in-turn.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const BYTE_RELAY = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'byte-relay.cjs');
const CALLS = 400;
const WARM = 20;
/** Calls of each path timed right after its server started, before any warm-up: what a session's few calls cost. */
const COLD_CALLS = 20;

/**
 * An MCP tool call's round trip through Skate (harness → its executor over tRPC → the SDK's client →
 * the server, confined) against the same call from the SDK's client straight to the same server
 * (unconfined), each with the server already started; and Skate's start of the server (executor + server + listing).
 * Both paths call the same server script with the same arguments; Skate's call also carries a
 * progress token (so that progress reaches the user). The cold figures are each path's first
 * calls after its start; the others follow WARM calls of each. `loadAverage` is the machine's
 * 1-minute load at the end: the ratio grows with it (each extra process hop waits for a CPU).
 *
 * The floor: the SDK's client through a process that only passes bytes on to the server
 * (`byte-relay.cjs`, a Node process like an executor, parsing nothing). No design with a process
 * between the harness and the server (the one executor per server) can beat it here;
 * `ratioOverFloor` is what Skate's own layers (tRPC, the runner, the executor's client, the
 * sandbox) add above it.
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
  const relayed = new Client({ name: 'bench', version: '1' });
  await relayed.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BYTE_RELAY, process.execPath, TEST_SERVER],
    }),
  );
  const echo = { name: 'echo', arguments: { text: 'x' } };
  const paths = {
    skate: () => handle.call('echo', { text: 'x' }, signal),
    sdk: () => direct.callTool(echo),
    floor: () => relayed.callTool(echo),
  };
  try {
    const cold = await timeInTurn(paths, COLD_CALLS);
    for (let i = 0; i < WARM; i++) for (const call of Object.values(paths)) await call();
    const warm = await timeInTurn(paths, CALLS);
    const ms = (times: number[]): number => round(median(times), 3);
    const ratio = (a: number[], b: number[]): number => round(median(a) / median(b), 2);
    return {
      mcpCallSkateMs: ms(warm.skate),
      mcpCallSdkDirectMs: ms(warm.sdk),
      ratio: ratio(warm.skate, warm.sdk),
      mcpCallRelayFloorMs: ms(warm.floor),
      floorRatio: ratio(warm.floor, warm.sdk),
      ratioOverFloor: ratio(warm.skate, warm.floor),
      mcpColdCallSkateMs: ms(cold.skate),
      mcpColdCallSdkDirectMs: ms(cold.sdk),
      coldRatio: ratio(cold.skate, cold.sdk),
      skateServerSandboxed: true,
      directServerSandboxed: false,
      serverStartThroughSkateMs: round(startMs, 0),
      loadAverage: round(loadavg()[0] ?? 0, 1),
    };
  } finally {
    await Promise.all([direct.close(), relayed.close()]);
    await handle.stop();
  }
}
