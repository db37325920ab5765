import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpServerHandle } from '../../harness/mcp/mcp-server-handle.js';
import { projectRoot } from '../../harness/project-paths.js';
import { hostDir } from '../support/host-dir.js';
import { testPolicy } from '../support/policies.js';
import { eventually, isAlive, pidsWithMarker } from '../support/processes.js';

const MALFORMED_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'malformed-server.mjs');
const OUTPUT_BYTES = 64 * 1024;

/** The node process below `root` (the sandbox's outermost process) whose script ends with `script`. */
async function nodeBelow(root: number, script: string): Promise<number | undefined> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  for (const pid of tree) {
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (argv[0] === process.execPath && argv[1]?.endsWith(script)) return pid;
  }
  return undefined;
}

/** Resident memory of a process, from /proc (MiB). */
async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/**
 * A server's answers are checked in the executor before they become a result: by hand for the
 * common shape, by the SDK's own schemas for everything else (executor/mcp/check-jsonrpc-message.ts,
 * call-tool-result.ts). A hostile server (test/fixtures/mcp/malformed-server.mjs, speaking JSON-RPC
 * by hand) answers each call in one malformed way; asserted on what reaches the harness and on the
 * executor's and the server's processes on the host.
 */
describe('a hostile MCP server’s malformed answers', () => {
  it('are refused, bounded or dropped in the executor, which lives on; a line past the limit ends the server', async () => {
    await using ws = await hostDir('mcp-replies-ws-');
    const policy = testPolicy(ws.path, {
      limits: { commandTimeoutSeconds: 20, outputBytes: OUTPUT_BYTES, memoryMiB: 2048, processes: 256 },
    });
    const marker = `malformed-${process.pid}-${Date.now()}`;
    const handle = new McpServerHandle({
      name: 'bad',
      config: { command: process.execPath, args: [MALFORMED_SERVER, marker] },
      workspace: ws.path,
      sandbox: 'required',
      agentPolicy: async () => policy,
      idleMs: 60_000,
      startTimeoutMs: 20_000,
    });
    const signal = new AbortController().signal;
    try {
      await handle.discover();
      const launch = handle.executorPid()!;
      // The executor's and the server's own node processes, inside the sandbox.
      const executor = (await nodeBelow(launch, 'executor.js'))!;
      const server = (await nodeBelow(launch, 'malformed-server.mjs'))!;
      expect(executor).toBeDefined();
      expect(server).toBeDefined();
      expect(await pidsWithMarker(marker)).toContain(server);

      for (const tool of ['content_not_array', 'text_not_string', 'is_error_string']) {
        const result = await handle.call(tool, {}, signal);
        expect(result, tool).toMatchObject({ isError: true, code: 'failed' });
        expect(result.output, tool).toMatch(/failed during the call/);
        expect(result.output).not.toContain('rm -rf');
      }

      // `__proto__` keys are data, never a prototype: the block's text arrives, no isError smuggled in.
      expect(await handle.call('proto_keys', {}, signal)).toEqual({ output: 'proto', isError: false });

      // A stray answer, garbage and a non-strict envelope are dropped; the real answer still arrives.
      expect(await handle.call('noise_first', {}, signal)).toEqual({
        output: 'after the noise',
        isError: false,
      });

      const big = await handle.call('big_text', {}, signal);
      expect(big.isError).toBe(false);
      expect(Buffer.byteLength(big.output)).toBeLessThan(OUTPUT_BYTES + 200);
      expect(big.output).toMatch(/output truncated/);

      // Past the line limit the transport gives up on the server (as the SDK's does) and ends it.
      const huge = await handle.call('huge_line', {}, signal);
      expect(huge).toMatchObject({ isError: true });
      expect(huge.output.length).toBeLessThan(2_000);
      expect(await eventually(async () => !(await isAlive(server!)), 10_000)).toBe(true);

      // The executor lived through all of it, holding no copy of the answers it refused.
      expect(await isAlive(executor)).toBe(true);
      expect(handle.executorPid()).toBe(launch);
      expect(await rssMiB(executor)).toBeLessThan(200);
      // The next call starts the server again, in the same executor.
      expect((await handle.call('ok', {}, signal)).output).toMatch(/^pid \d+$/);
      const again = await nodeBelow(launch, 'malformed-server.mjs');
      expect(again).toBeDefined();
      expect(again).not.toBe(server);
      expect(await nodeBelow(launch, 'executor.js')).toBe(executor);
    } finally {
      await handle.stop();
    }
    expect(await eventually(async () => (await pidsWithMarker(marker)).length === 0)).toBe(true);
  }, 60_000);
});
