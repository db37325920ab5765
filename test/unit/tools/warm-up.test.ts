import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyTool } from '../../../executor/define-tool.js';
import { createExecutor } from '../../../executor/executor.js';
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

describe('warming an executor up', () => {
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
