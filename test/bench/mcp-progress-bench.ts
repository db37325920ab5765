import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { MetaToolCall } from '../../harness/engine/engine-types.js';
import { withProgress } from '../../harness/mcp/mcp-progress.js';
import { McpServerHandle } from '../../harness/mcp/mcp-server-handle.js';
import { projectRoot } from '../../harness/project-paths.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { median, round } from './stats.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const CALLS = 400;
const WARM = 20;

/**
 * What showing progress costs a fast MCP call: the call as the engine makes it (through
 * `withProgress`, its output watched once it runs 400 ms) against the same call with no output
 * watched (as before progress was shown) and the SDK's client straight to the server, the three
 * interleaved one by one (their order rotated each round) so that the machine's load falls on all alike.
 */
export async function benchMcpProgress(policy: ResolvedPolicy): Promise<object> {
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
  let lines = 0;
  const call = { callId: 'b', agent: [], signal, emit: () => lines++ } as unknown as MetaToolCall;
  await handle.discover();
  const direct = new Client({ name: 'bench', version: '1' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [TEST_SERVER] }));
  const paths = {
    watched: () => withProgress(call, (onOutput) => handle.call('echo', { text: 'x' }, signal, onOutput)),
    unwatched: () => handle.call('echo', { text: 'x' }, signal),
    sdk: () => direct.callTool({ name: 'echo', arguments: { text: 'x' } }),
  };
  const times = { watched: [] as number[], unwatched: [] as number[], sdk: [] as number[] };
  try {
    for (let i = 0; i < WARM; i++) for (const run of Object.values(paths)) await run();
    // Rotated each round: a call right after the SDK's own is slower (the machine wakes the other
    // process), and no path should always be the one that pays it.
    const entries = Object.entries(paths);
    for (let i = 0; i < CALLS; i++)
      for (let j = 0; j < entries.length; j++) {
        const [name, run] = entries[(i + j) % entries.length]!;
        const start = performance.now();
        await run();
        times[name as keyof typeof times].push(performance.now() - start);
      }
    const ms = (name: keyof typeof times) => median(times[name]);
    return {
      fastCallWithProgressMs: round(ms('watched'), 3),
      fastCallWithoutProgressMs: round(ms('unwatched'), 3),
      sdkDirectMs: round(ms('sdk'), 3),
      withVsWithout: round(ms('watched') / ms('unwatched'), 2),
      withVsSdk: round(ms('watched') / ms('sdk'), 2),
      progressLinesShown: lines,
    };
  } finally {
    await direct.close();
    await handle.stop();
  }
}
