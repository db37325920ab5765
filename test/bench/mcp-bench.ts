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

/**
 * The two paths' calls interleaved (one of each, in turn), so that load from whatever else runs on
 * the machine falls on both alike: the ratio is what the bench is for. Which goes first alternates
 * each round: a call made right after the other path's call was measured slower whatever its path.
 */
async function timeInTurn(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<{ a: number[]; b: number[] }> {
  for (let i = 0; i < WARM; i++) {
    await a();
    await b();
  }
  const times = { a: [] as number[], b: [] as number[] };
  const timed = async (call: () => Promise<unknown>, into: number[]): Promise<void> => {
    const start = performance.now();
    await call();
    into.push(performance.now() - start);
  };
  for (let i = 0; i < CALLS; i++) {
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
  try {
    const { a: skate, b: sdk } = await timeInTurn(
      () => handle.call('echo', { text: 'x' }, signal),
      () => direct.callTool({ name: 'echo', arguments: { text: 'x' } }),
    );
    return {
      mcpCallSkateMs: round(median(skate), 3),
      mcpCallSdkDirectMs: round(median(sdk), 3),
      ratio: round(median(skate) / median(sdk), 2),
      serverStartThroughSkateMs: round(startMs, 0),
    };
  } finally {
    await direct.close();
    await handle.stop();
  }
}
