import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AnyTool } from '../../../executor/define-tool.js';
import { createExecutor, type Executor, WARM_AFTER_IDLE_MS } from '../../../executor/executor.js';
import { RpcServer } from '../../../executor/server/rpc-server.js';
import type { LazyTool } from '../../../executor/tool-registry.js';
import { toolsFor } from '../../../executor/tools/index.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../../../harness/executor-client/executor-client.js';
import type { ExecutorBoot } from '../../../shared/executor-boot.js';
import type { ResolvedPolicy } from '../../../shared/policy.js';
import { transformer } from '../../../shared/trpc.js';
import { testPolicy } from '../../support/policies.js';
import { tempDir } from '../../support/temp-dir.js';

function boot(policy: ResolvedPolicy, commandWrapper: string[] = []): ExecutorBoot {
  return {
    type: 'boot',
    protocol: 1,
    policy,
    enforcement: 'none',
    resourceLimits: 'none',
    commandWrapper,
    diagnosticTools: true,
    maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
  };
}

/** The policy's tools, listed lazily, recording which modules were loaded. */
function countedTools(policy: ResolvedPolicy): { tools: LazyTool[]; loaded: string[] } {
  const loaded: string[] = [];
  const tools = toolsFor(policy, true).map((tool) => ({
    definition: tool.definition,
    load: () => {
      loaded.push(tool.definition.name);
      return tool.load();
    },
  }));
  return { tools, loaded };
}

/** A wrapper script that records what it was asked to run, then runs it, as skate-confine would. */
async function recordingWrapper(dir: string): Promise<{ wrapper: string; log: string }> {
  const log = path.join(dir, 'wrapper.log');
  const wrapper = path.join(dir, 'wrapper.sh');
  await writeFile(wrapper, `#!/bin/sh\necho "$@" >> '${log}'\nexec "$@"\n`);
  await chmod(wrapper, 0o755);
  return { wrapper, log };
}

/** The wrapper's log lines once it has `lines` of them, or what it has after `ms`. */
async function logLines(log: string, lines: number, ms: number): Promise<string[]> {
  const until = Date.now() + ms;
  for (;;) {
    const found = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    if (found.length >= lines || Date.now() > until) return found;
    await sleep(20);
  }
}

/** A call as the RPC server makes it: through the served procedure. */
function callTool(executor: Executor, callId: string, name: string, input: unknown): Promise<unknown> {
  return Promise.resolve(executor.procedures.callTool!.run({ callId, name, input }, undefined));
}

describe('warming an executor up', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('loads the shell tool alone and makes a first spawn, under the command wrapper', async () => {
    await using dir = await tempDir();
    const log = path.join(dir.path, 'wrapper.log');
    // A wrapper that records what it was asked to run, then runs it, as skate-confine would.
    const wrapper = path.join(dir.path, 'wrapper.sh');
    await writeFile(wrapper, `#!/bin/sh\necho "$@" >> '${log}'\nexec "$@"\n`);
    await chmod(wrapper, 0o755);
    const policy = testPolicy(dir.path);
    const { tools, loaded } = countedTools(policy);
    const executor = createExecutor(boot(policy, [wrapper]), () => {}, { tools, ripgrep: undefined });
    await executor.warmUp();
    expect(loaded).toEqual(['shell']);
    expect((await readFile(log, 'utf8')).trim()).toMatch(/^\/bin\/(ba)?sh -c echo$/);
    // The warm-up is no call: nothing is left running and the first real call works as ever.
    expect(executor.runner.runningCount).toBe(0);
    const result = await executor.runner.call(
      { callId: 'c1', name: 'shell', input: { command: 'echo hi' } },
      undefined,
    );
    expect(result).toMatchObject({ isError: false, output: 'hi\n[exit code 0]' });
  });

  it('a warm-up that fails, or is cancelled by a shutdown, leaves the tool working', async () => {
    await using dir = await tempDir();
    const policy = testPolicy(dir.path);
    let warmSignal: AbortSignal | undefined;
    const failing: AnyTool = {
      ...(await toolsFor(policy, false)
        .find((tool) => tool.definition.name === 'shell')!
        .load()),
      async warm(ctx) {
        warmSignal = ctx.signal;
        throw new Error('no spawn today');
      },
    };
    const executor = createExecutor(boot(policy), () => {}, { tools: [failing], ripgrep: undefined });
    await expect(executor.warmUp()).resolves.toBeUndefined();
    expect(warmSignal?.aborted).toBe(false);
    executor.runner.cancelAll('executor shutting down');
    expect(warmSignal?.aborted).toBe(true);
    const result = await executor.runner.call(
      { callId: 'c1', name: 'shell', input: { command: 'echo still' } },
      undefined,
    );
    expect(result.output).toContain('still');
  });

  it('waits until no call has been made or run for a while, so a start burst is not slowed', async () => {
    await using dir = await tempDir();
    const { wrapper, log } = await recordingWrapper(dir.path);
    const policy = testPolicy(dir.path);
    const { tools, loaded } = countedTools(policy);
    const executor = createExecutor(boot(policy, [wrapper]), () => {}, { tools, ripgrep: undefined });
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
    executor.warmUpWhenIdle();
    executor.warmUpWhenIdle(); // once only
    await vi.advanceTimersByTimeAsync(WARM_AFTER_IDLE_MS - 10);
    // A call inside the quiet spell starts it again.
    await callTool(executor, 'c1', 'list_dir', { path: '.' });
    await vi.advanceTimersByTimeAsync(WARM_AFTER_IDLE_MS - 10);
    expect(loaded).toEqual(['list_dir']);
    await vi.advanceTimersByTimeAsync(20);
    expect(loaded).toEqual(['list_dir', 'shell']);
    vi.useRealTimers();
    expect(await logLines(log, 1, 5_000)).toEqual([expect.stringMatching(/ -c echo$/)]);
  });

  it('is skipped once the executor is shutting down, or once a call has used the tool', async () => {
    await using dir = await tempDir();
    const { wrapper, log } = await recordingWrapper(dir.path);
    const policy = testPolicy(dir.path);
    const stopping = countedTools(policy);
    const stopped = createExecutor(boot(policy, [wrapper]), () => {}, {
      tools: stopping.tools,
      ripgrep: undefined,
    });
    const called = countedTools(policy);
    const used = createExecutor(boot(policy, [wrapper]), () => {}, {
      tools: called.tools,
      ripgrep: undefined,
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
    stopped.warmUpWhenIdle();
    used.warmUpWhenIdle();
    await stopped.procedures.shutdown!.run(undefined, undefined);
    vi.useRealTimers();
    await callTool(used, 'c1', 'shell', { command: 'echo hi' });
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
    await vi.advanceTimersByTimeAsync(10 * WARM_AFTER_IDLE_MS);
    vi.useRealTimers();
    expect(stopping.loaded).toEqual([]);
    expect(called.loaded).toEqual(['shell']);
    // Only the call's command ran: no warm-up command from either executor.
    await sleep(300);
    expect(await logLines(log, 2, 0)).toEqual([expect.stringMatching(/ -c echo hi$/)]);
  });

  it('the RPC server says when an answer is out, which is when main.ts starts the warm-up', async () => {
    await using dir = await tempDir();
    const policy = testPolicy(dir.path);
    const executor = createExecutor(boot(policy), () => {}, { ripgrep: undefined });
    const events: string[] = [];
    let bothAnswered!: () => void;
    const answered = new Promise<void>((resolve) => (bothAnswered = resolve));
    const server = new RpcServer({
      procedures: executor.procedures,
      send: (frame) => events.push(`sent ${(JSON.parse(frame) as { id: number }).id}`),
      onAnswered: (procedure) => {
        events.push(`answered ${procedure}`);
        if (events.length === 4) bothAnswered();
      },
    });
    server.receive(
      JSON.stringify({
        id: 1,
        method: 'query',
        params: { path: 'listTools', input: transformer.serialize(undefined) },
      }),
    );
    server.receive(
      JSON.stringify({
        id: 2,
        method: 'query',
        params: { path: 'health', input: transformer.serialize(undefined) },
      }),
    );
    await answered;
    // Each answer is reported right after it was sent (the two may finish in either order).
    expect(events.indexOf('answered listTools')).toBe(events.indexOf('sent 1') + 1);
    expect(events.indexOf('answered health')).toBe(events.indexOf('sent 2') + 1);
  });
});
