import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createExecutor } from '../../executor/executor.js';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { McpServerHandle, mcpServerPolicy } from '../../harness/mcp/mcp-server-handle.js';
import { projectRoot } from '../../harness/project-paths.js';
import { confineWrapper } from '../../harness/sandbox/executor-launch.js';
import { launchCommand } from '../../harness/sandbox/launch-command.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { median, round } from './stats.js';
import { timeInTurn } from './time-in-turn.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const CALLS = 400;
const WARM = 40;

type Call = () => Promise<unknown>;

/** Each path's median call (µs) after WARM calls of each, the paths' calls in turn. */
async function mediansInTurn(paths: Record<string, Call>): Promise<Record<string, number>> {
  for (let i = 0; i < WARM; i++) for (const call of Object.values(paths)) await call();
  const times = await timeInTurn(paths, CALLS);
  return Object.fromEntries(Object.entries(times).map(([name, ms]) => [name, round(median(ms) * 1000, 0)]));
}

/** `root` and every process below it, from /proc. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const all = [root];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i]!) ?? []));
  return all;
}

/** The node process in `root`'s tree whose command line runs `script`. */
function nodeRunning(root: number, script: string): number {
  const pid = processTree(root).find((candidate) => {
    const argv = readFileSync(`/proc/${candidate}/cmdline`, 'utf8').split('\0');
    return argv[0] === process.execPath && argv[1]?.endsWith(script);
  });
  if (pid === undefined) throw new Error(`no process runs ${script} under ${root}`);
  return pid;
}

/**
 * Nanoseconds the process's threads have run on a CPU (schedstat's first field: not ticks, and not
 * time spent waiting), or with `field` 1, have waited on a run queue for one (runnable, not running).
 */
function schedNs(pid: number, field: 0 | 1 = 0): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[field]);
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return total;
}

/**
 * CPU µs per call of each process over a block of calls, and (`<name>Wait`) the µs each waited for
 * a CPU once woken: on a loaded machine every process the call wakes adds such a wait.
 */
async function cpuPerCall(call: Call, pids: Record<string, number>): Promise<Record<string, number>> {
  for (let i = 0; i < WARM; i++) await call();
  const before = Object.entries(pids).map(
    ([name, pid]) => [name, pid, schedNs(pid), schedNs(pid, 1)] as const,
  );
  for (let i = 0; i < CALLS; i++) await call();
  return Object.fromEntries(
    before.flatMap(([name, pid, ns, waitNs]) => [
      [name, round((schedNs(pid) - ns) / CALLS / 1000, 0)],
      [`${name}Wait`, round((schedNs(pid, 1) - waitNs) / CALLS / 1000, 0)],
    ]),
  );
}

async function sdkClient(command: string, args: string[], env?: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, ...(env && { env }) }));
  return client;
}

/**
 * Where an MCP call's time goes through Skate, layer by layer. Wall time (µs, medians of
 * interleaved calls): the SDK's client straight to the server; the same to the server inside its
 * policy's bubblewrap sandbox; an executor's `callTool` in this process (its runner and the SDK's
 * client; the server under skate-confine); a bare tRPC no-op round trip to a sandboxed executor;
 * the whole path. Then CPU µs per call in each process, direct and through Skate.
 */
export async function benchMcpLayers(policy: ResolvedPolicy): Promise<object> {
  const echo = { name: 'echo', arguments: { text: 'x' } };
  const direct = await sdkClient(process.execPath, [TEST_SERVER]);
  const serverPolicy = mcpServerPolicy('bench', { command: process.execPath }, policy, policy.workspace);
  const launch = await launchCommand(serverPolicy, 'required', [process.execPath, TEST_SERVER], {
    note: () => undefined,
  });
  // As the executor runs a server: without the output relay.
  const [command, ...args] = launch.argv.filter((arg) => arg !== '--pipe-output') as [string, ...string[]];
  const sandboxed = await sdkClient(command, args, launch.env);
  const inProcess = createExecutor(
    {
      type: 'boot',
      protocol: 1,
      policy: serverPolicy,
      enforcement: 'none',
      resourceLimits: 'none',
      commandWrapper: confineWrapper(),
      diagnosticTools: false,
      maxFrameBytes: 16 * 1024 * 1024,
      mcpServer: {
        name: 'bench',
        command: process.execPath,
        args: [TEST_SERVER],
        env: {},
        startTimeoutMs: 30_000,
      },
    },
    () => undefined,
  );
  const noop = await ExecutorClient.spawn({ policy, diagnosticTools: true });
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
  let seq = 0;
  try {
    await inProcess.procedures.listTools!.run(undefined, undefined);
    await handle.discover();
    const wall = await mediansInTurn({
      sdkDirect: () => direct.callTool(echo),
      sdkToSandboxedServer: () => sandboxed.callTool(echo),
      executorInProcess: async () =>
        inProcess.procedures.callTool!.run(
          { callId: `c${++seq}`, name: 'echo', input: { text: 'x' } },
          new AbortController().signal,
        ),
      rpcNoop: () => noop.callTool('noop', {}),
      skate: () => handle.call('echo', { text: 'x' }, signal),
    });
    const cpuDirect = await cpuPerCall(() => direct.callTool(echo), {
      client: process.pid,
      server: nodeRunning((direct.transport as StdioClientTransport).pid!, 'test-server.mjs'),
    });
    const executorPid = handle.executorPid();
    if (executorPid === undefined) throw new Error('the bench server is not running');
    const cpuSkate = await cpuPerCall(() => handle.call('echo', { text: 'x' }, signal), {
      harness: process.pid,
      executor: nodeRunning(executorPid, 'executor.js'),
      server: nodeRunning(executorPid, 'test-server.mjs'),
    });
    return {
      ...Object.fromEntries(Object.entries(wall).map(([name, us]) => [`mcpLayerWall_${name}_us`, us])),
      ...Object.fromEntries(Object.entries(cpuDirect).map(([name, us]) => [`mcpCpuDirect_${name}_us`, us])),
      ...Object.fromEntries(Object.entries(cpuSkate).map(([name, us]) => [`mcpCpuSkate_${name}_us`, us])),
    };
  } finally {
    await Promise.all([direct.close(), sandboxed.close()]);
    await launch.release();
    inProcess.procedures.shutdown!.run(undefined, undefined);
    await noop.shutdown();
    await handle.stop();
  }
}
