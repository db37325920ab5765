import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { ExecutorChannelError, ExecutorRpcError } from '../../harness/executor-client/executor-errors.js';
import type { OutputLine, ToolDefinition } from '../../shared/tool.js';
import { testPolicy } from '../support/policies.js';
import { processDescendants } from '../support/process-descendants.js';
import { eventually, isAlive } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

async function spawnExecutor(
  workspace: string,
  policyName = 'test',
): Promise<ExecutorClient & AsyncDisposable> {
  const client = await ExecutorClient.spawn({
    policy: testPolicy(workspace, { name: policyName }),
    diagnosticTools: true,
  });
  return Object.assign(client, {
    async [Symbol.asyncDispose]() {
      await client.shutdown();
    },
  });
}

describe('ExecutorClient with a real executor process', () => {
  it('lists tools with JSON Schema inputs and reports health', async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    const tools = await executor.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['read_file', 'write_file', 'noop', 'emit_lines']));
    const read = tools.find((tool) => tool.name === 'read_file')!;
    expect(read.effect).toBe('read');
    expect(read.inputSchema).toMatchObject({ type: 'object', required: ['path'] });
    // Cached: the same array comes back without another round trip.
    expect(await executor.listTools()).toBe(tools);
    const health = await executor.health();
    expect(health).toMatchObject({
      policy: 'test',
      enforcement: 'kernel',
      commandIsolation: true,
      workspace: dir.path,
      toolCount: tools.length,
    });
    expect(executor.enforcement).toBe('kernel');
  });

  it('writes and reads files through the channel', async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    const written = await executor.callTool('write_file', { path: 'notes/a.md', content: '# hi\n' });
    expect(written).toMatchObject({ isError: false, output: 'created notes/a.md (5 bytes, 2 lines)' });
    expect(await readFile(path.join(dir.path, 'notes/a.md'), 'utf8')).toBe('# hi\n');
    expect(await executor.callTool('read_file', { path: 'notes/a.md' })).toMatchObject({ output: '1\t# hi' });
  });

  it('streams output lines before the result and in order', async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    const lines: OutputLine[] = [];
    const result = await executor.callTool(
      'emit_lines',
      { count: 200 },
      { onOutput: (line) => lines.push(line) },
    );
    expect(result.output).toBe('emitted 200 lines');
    expect(lines.map((line) => line.text)).toEqual(Array.from({ length: 200 }, (_, i) => `line ${i + 1}`));
    expect(new Set(lines.map((line) => line.stream))).toEqual(new Set(['stdout']));
  });

  it('subscribes to output only for tools that stream it', async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    const tools = await executor.listTools();
    expect(tools.find((tool) => tool.name === 'shell')?.streamsOutput).toBe(true);
    expect(tools.find((tool) => tool.name === 'read_file')?.streamsOutput).toBe(false);
    // Requests sent: a subscription would be one more per call.
    const rpc = (executor as unknown as { connection: { rpc: { requestCount: number } } }).connection.rpc;
    const onOutput = () => undefined;
    let before = rpc.requestCount;
    await executor.callTool('noop', {}, { onOutput });
    expect(rpc.requestCount - before).toBe(1);
    before = rpc.requestCount;
    await executor.callTool('emit_lines', { count: 1 }, { onOutput });
    expect(rpc.requestCount - before).toBe(2);
  });

  it('cancels a running call and the executor confirms it', async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    const controller = new AbortController();
    const lines: OutputLine[] = [];
    const started = Date.now();
    const pending = executor.callTool(
      'emit_lines',
      { count: 1000, intervalMs: 20 },
      {
        signal: controller.signal,
        onOutput: (line) => {
          lines.push(line);
          if (lines.length === 3) controller.abort();
        },
      },
    );
    const result = await pending;
    expect(result).toMatchObject({ isError: true, code: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(lines.length).toBeLessThan(20);
    // Still serving afterwards.
    expect(await executor.callTool('noop', {})).toMatchObject({ output: 'ok' });
    expect((await executor.health()).runningCalls).toBe(0);
  });

  it('runs calls concurrently and answers each in its own order', async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    const slow = executor.callTool('emit_lines', { count: 5, intervalMs: 40 });
    const fast = executor.callTool('noop', {});
    const order: string[] = [];
    await Promise.all([slow.then(() => order.push('slow')), fast.then(() => order.push('fast'))]);
    expect(order).toEqual(['fast', 'slow']);
  });

  it('leaves no pending state behind after many calls', async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    for (let i = 0; i < 500; i++) await executor.callTool('noop', {});
    const health = await executor.health();
    expect(health.runningCalls).toBe(0);
    // The client's own bookkeeping: one request (health) was answered, nothing remains.
    expect(
      (executor as unknown as { connection: { rpc: { pendingCount: number } } }).connection.rpc.pendingCount,
    ).toBe(0);
  });

  it('fails pending calls with a typed error when the executor dies, and can start a new one', async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    const firstPid = executor.pid!;
    const exits: string[] = [];
    executor.onExit((exit) => exits.push(exit.reason));
    const pending = executor.callTool('emit_lines', { count: 100, intervalMs: 50 });
    setTimeout(() => process.kill(firstPid, 'SIGKILL'), 100);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutorChannelError);
    expect(error).toMatchObject({ code: 'exited' });
    expect(exits).toHaveLength(1);
    // Later calls fail the same way, at once.
    await expect(executor.callTool('noop', {})).rejects.toMatchObject({ code: 'exited' });
    await executor.restart();
    expect(executor.pid).not.toBe(firstPid);
    expect(await executor.callTool('noop', {})).toMatchObject({ output: 'ok' });
  });

  it('starts a replacement by itself after an unexpected death, as many times as allowed', async () => {
    await using dir = await tempDir();
    const executor = await ExecutorClient.spawn({
      policy: testPolicy(dir.path),
      diagnosticTools: true,
      restartsOnExit: 1,
    });
    try {
      const exits: boolean[] = [];
      executor.onExit((_exit, expected) => exits.push(expected));
      const first = executor.pid!;
      const lost = executor.callTool('emit_lines', { count: 100, intervalMs: 50 });
      setTimeout(() => process.kill(first, 'SIGKILL'), 100);
      await expect(lost).rejects.toMatchObject({ code: 'exited' });
      // The next call waits for the replacement rather than failing.
      expect(await executor.callTool('noop', {})).toMatchObject({ output: 'ok' });
      const second = executor.pid!;
      expect(second).not.toBe(first);
      expect(await isAlive(first)).toBe(false);
      process.kill(second, 'SIGKILL');
      expect(await eventually(async () => !(await isAlive(second)))).toBe(true);
      // No restarts left: calls now fail at once with the typed error.
      await expect(executor.callTool('noop', {})).rejects.toMatchObject({ code: 'exited' });
      expect(exits).toEqual([false, false]);
    } finally {
      await executor.shutdown();
    }
  });

  it('keeps two executors with different policies apart', async () => {
    await using a = await tempDir();
    await using b = await tempDir();
    await using first = await spawnExecutor(a.path, 'alpha');
    await using second = await spawnExecutor(b.path, 'beta');
    expect((await first.health()).policy).toBe('alpha');
    expect((await second.health()).policy).toBe('beta');
    const denied = await first.callTool('write_file', { path: path.join(b.path, 'x'), content: 'x' });
    expect(denied).toMatchObject({ code: 'denied', output: expect.stringContaining('policy "alpha"') });
    expect(await second.callTool('write_file', { path: 'x', content: 'x' })).toMatchObject({
      isError: false,
    });
  });

  it('shuts the executor down and leaves no process', async () => {
    await using dir = await tempDir();
    const executor = await spawnExecutor(dir.path);
    const pid = executor.pid!;
    const exit = await executor.shutdown();
    expect(exit.code).toBe(0);
    expect(await eventually(async () => !(await isAlive(pid)))).toBe(true);
  });
});

describe('the typed tRPC client path to a real executor process', () => {
  it("reports the executor's refusal of a request as a typed error naming the field", async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    // callTool's input is validated once, by the executor's procedure: a name past 256 characters fails there.
    const error = await executor.callTool('x'.repeat(300), {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutorRpcError);
    expect(error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('name') });
    // The channel is fine afterwards.
    expect(await executor.callTool('noop', {})).toMatchObject({ output: 'ok' });
  });

  it('gives up on a cancelled call the executor cannot confirm, after the grace, and forgets it', async () => {
    await using dir = await tempDir();
    const executor = await ExecutorClient.spawn({
      policy: testPolicy(dir.path),
      diagnosticTools: true,
      cancelGraceMs: 300,
    });
    const frozen: number[] = [];
    try {
      const controller = new AbortController();
      const pending = executor.callTool(
        'emit_lines',
        { count: 1000, intervalMs: 20 },
        { signal: controller.signal },
      );
      await executor.health();
      // A stopped executor cannot answer the cancel: the call must still end, as a cancelled result.
      frozen.push(executor.pid!, ...(await processDescendants(executor.pid!)));
      for (const pid of frozen) process.kill(pid, 'SIGSTOP');
      const started = Date.now();
      controller.abort();
      const result = await pending;
      expect(result).toMatchObject({ isError: true, code: 'cancelled' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      const rpc = (executor as unknown as { connection: { rpc: { pendingCount: number } } }).connection.rpc;
      expect(rpc.pendingCount).toBe(0);
      for (const pid of frozen.splice(0)) process.kill(pid, 'SIGCONT');
      // Its late answer is dropped, and the executor keeps serving.
      expect(await executor.callTool('noop', {})).toMatchObject({ output: 'ok' });
      expect(await eventually(async () => (await executor.health()).runningCalls === 0)).toBe(true);
    } finally {
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
      await executor.shutdown();
    }
  });

  it('cancels through the signal alone: the executor confirms and reports what it stopped', async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    const controller = new AbortController();
    controller.abort();
    // Aborted before it was sent: the executor still gets the call and its cancel, and answers both.
    const result = await executor.callTool(
      'emit_lines',
      { count: 100, intervalMs: 20 },
      { signal: controller.signal },
    );
    expect(result).toMatchObject({ isError: true, code: 'cancelled' });
    expect(result.output).not.toContain('did not confirm');
    expect((await executor.health()).runningCalls).toBe(0);
  });
});

describe('ExecutorClient.launch (a start that need not wait)', () => {
  it('returns once the process runs: lists the tools expected of it until its own come, and calls wait for it', async () => {
    await using dir = await tempDir();
    const expected: ToolDefinition[] = [
      { name: 'read_file', description: 'as remembered', effect: 'read', inputSchema: { type: 'object' } },
    ];
    const { client, ready } = await ExecutorClient.launch({
      policy: testPolicy(dir.path),
      diagnosticTools: true,
      expectedTools: expected,
    });
    try {
      let isReady = false;
      void ready.then(() => {
        isReady = true;
      });
      expect(isReady).toBe(false);
      expect(await client.listTools()).toBe(expected);
      // A call made before the executor is ready waits for it and runs.
      expect(await client.callTool('write_file', { path: 'a.txt', content: 'x' })).toMatchObject({
        isError: false,
      });
      const own = await ready;
      expect(own.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['read_file', 'write_file', 'noop']),
      );
      expect(await client.listTools()).toBe(own);
      expect(await readFile(path.join(dir.path, 'a.txt'), 'utf8')).toBe('x');
    } finally {
      await client.shutdown();
    }
  });

  it('fails its calls and `ready` when the executor does not start, without hanging', async () => {
    await using dir = await tempDir();
    const { client, ready } = await ExecutorClient.launch({
      policy: testPolicy(dir.path),
      // A "sandbox" whose process exits at once, as a broken bwrap would.
      launcher: async () => ({
        command: 'sh',
        args: ['-c', 'echo cannot build the sandbox >&2; exit 1'],
        cwd: dir.path,
        env: {},
        enforcement: 'none',
        resourceLimits: 'none',
        commandWrapper: [],
      }),
      expectedTools: [{ name: 'shell', description: 'as remembered', effect: 'execute', inputSchema: {} }],
    });
    await expect(ready).rejects.toThrow(/exited|cannot build the sandbox/);
    await expect(client.callTool('shell', { command: 'true' })).rejects.toBeInstanceOf(ExecutorChannelError);
    await client.shutdown();
  });
});
