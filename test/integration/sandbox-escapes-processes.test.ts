import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecutorChannelError } from '../../harness/executor-client/executor-errors.js';
import { cgroupSupport } from '../../harness/sandbox/cgroup-limits.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import type { PolicyLimits } from '../../shared/policy.js';
import { testPolicy } from '../support/policies.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { eventually, isAlive, pidsWithMarker } from '../support/processes.js';
import { type SandboxedExecutor, sandboxedExecutor } from '../support/sandboxed-executor.js';
import { type TempDir, tempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;
const LIMITS: PolicyLimits = {
  commandTimeoutSeconds: 30,
  outputBytes: 64 * 1024,
  memoryMiB: 256,
  processes: 64,
};
const cgroups = support.available ? await cgroupSupport(LIMITS) : 'none';
const noCgroups =
  cgroups === 'none'
    ? 'cgroups are not writable here, so memory and process limits are not enforced'
    : undefined;

function marker(): string {
  return `skate-escape-${randomBytes(6).toString('hex')}`;
}

/**
 * A daemon that leaves the command's session, and a foreground sleeper; both carry the marker.
 * The quotes keep `MARK-daemon` out of the shell's own command line, so only the daemon matches it.
 */
function orphanMaker(mark: string): string {
  return `setsid bash -c 'exec -a ${mark}"-daemon" sleep 1000' & (exec -a ${mark}"-fg" sleep 1000)`;
}

/** The node executor on the host: below bubblewrap and the sandbox's init (skate-confine), running executor.js. */
async function executorNodePid(executor: SandboxedExecutor): Promise<number> {
  for (const pid of await processDescendants(executor.client.pid!)) {
    const cmd = await commandLine(pid);
    if (cmd.includes('executor.js') && !cmd.includes('bwrap') && !cmd.includes('skate-confine')) return pid;
  }
  throw new Error('no executor process found');
}

describe.skipIf(noSandbox)('sandbox escapes: processes and resources', () => {
  let dir: TempDir;
  let executor: SandboxedExecutor;

  beforeAll(async () => {
    dir = await tempDir();
    executor = await sandboxedExecutor(testPolicy(dir.path, { limits: LIMITS }));
  });

  afterAll(async () => {
    await executor?.[Symbol.asyncDispose]();
    await dir?.[Symbol.asyncDispose]();
  });

  async function stillServing(): Promise<void> {
    expect(await executor.sh('echo still-here')).toMatchObject({ exitCode: 0, output: 'still-here\n' });
    expect((await executor.client.health()).runningCalls).toBe(0);
  }

  it('leaves no process behind when a call is cancelled, not even a setsid daemon', async () => {
    const mark = marker();
    const controller = new AbortController();
    const call = executor.client.callTool(
      'shell',
      { command: orphanMaker(mark) },
      { signal: controller.signal },
    );
    expect(await eventually(async () => (await pidsWithMarker(`${mark}-daemon`)).length > 0)).toBe(true);
    controller.abort();
    expect(await call).toMatchObject({ isError: true, code: 'cancelled' });
    expect(await eventually(async () => (await pidsWithMarker(mark)).length === 0)).toBe(true);
    await stillServing();
  });

  it('kills everything a command started when it times out', async () => {
    const mark = marker();
    const started = Date.now();
    const run = await executor.sh(orphanMaker(mark), { timeout_seconds: 1 });
    expect(run.result).toMatchObject({ isError: true, code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(await eventually(async () => (await pidsWithMarker(mark)).length === 0)).toBe(true);
  });

  it('kills background processes left by a command that exits', async () => {
    const mark = marker();
    const run = await executor.sh(
      `setsid bash -c 'exec -a ${mark} sleep 1000' >/dev/null 2>&1 & echo started`,
    );
    // The marker is also in the shell's command line; once that is gone only a survivor could match.
    expect(run).toMatchObject({ exitCode: 0, output: 'started\n' });
    expect(await eventually(async () => (await pidsWithMarker(mark)).length === 0)).toBe(true);
  });

  it('bounds an output flood to the policy limit', async () => {
    const run = await executor.sh(
      'yes skate-flood-line | head -c 20000000; yes err-line | head -c 5000000 >&2',
    );
    expect(run.exitCode).toBe(0);
    expect(Buffer.byteLength(run.result.output)).toBeLessThanOrEqual(LIMITS.outputBytes);
    expect(run.result.output).toContain('skate-flood-line');
    await stillServing();
  });

  it.skipIf(noCgroups)(
    'contains a fork bomb in the pids cgroup; the executor survives and keeps serving',
    async () => {
      const mark = marker();
      const executorPid = await executorNodePid(executor);
      let most = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          most = Math.max(most, (await pidsWithMarker(mark)).length);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      const run = await executor.sh(
        `for i in $(seq 1 5000); do (exec -a ${mark} sleep 30) & done 2>/dev/null; wait`,
        { timeout_seconds: 3 },
      );
      sampling = false;
      await sampler;
      expect(run.result).toMatchObject({ code: 'timeout' });
      // Some sleepers started, and never more than the whole sandbox may hold.
      expect(most).toBeGreaterThan(5);
      expect(most).toBeLessThanOrEqual(LIMITS.processes);
      expect(await eventually(async () => (await pidsWithMarker(mark)).length === 0)).toBe(true);
      expect(await isAlive(executorPid)).toBe(true);
      await stillServing();
    },
    20_000,
  );

  it.skipIf(noCgroups)(
    'OOM-kills a memory hog inside the sandbox; the executor survives and keeps serving',
    async () => {
      const executorPid = await executorNodePid(executor);
      const run = await executor.sh(
        `${process.execPath} -e "const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1))"; echo "status=$?"`,
      );
      // 137: killed by SIGKILL, which is what the kernel's OOM killer sends.
      expect(run.output).toContain('status=137');
      expect(await isAlive(executorPid)).toBe(true);
      await stillServing();
    },
    20_000,
  );
});

describe.skipIf(noSandbox)('sandbox escapes: the executor dies', () => {
  for (const [how, kill] of [
    [
      'its node process is SIGKILLed',
      async (e: SandboxedExecutor) => process.kill(await executorNodePid(e), 'SIGKILL'),
    ],
    [
      'the harness kills the sandbox (SIGKILL to bubblewrap)',
      async (e: SandboxedExecutor) => e.client.kill(),
    ],
  ] as const) {
    it(`leaves no sandbox process behind when ${how}`, async () => {
      await using dir = await tempDir();
      await using executor = await sandboxedExecutor(testPolicy(dir.path));
      const mark = marker();
      const sandboxRoot = executor.client.pid!;
      const call = executor.client.callTool('shell', { command: orphanMaker(mark) });
      expect(await eventually(async () => (await pidsWithMarker(`${mark}-daemon`)).length > 0)).toBe(true);
      const inside = await processDescendants(sandboxRoot);
      expect(inside.length).toBeGreaterThan(3);
      await kill(executor);
      expect(await call.catch((error: unknown) => error)).toBeInstanceOf(ExecutorChannelError);
      expect(await eventually(async () => (await pidsWithMarker(mark)).length === 0)).toBe(true);
      expect(await eventually(async () => !(await isAlive(sandboxRoot)))).toBe(true);
      // The pid namespace's end kills the rest, but a process can still be exiting (not yet a zombie) a moment
      // after its root is gone: each must be gone soon after, not at the same instant.
      const left = async (): Promise<number[]> =>
        (await Promise.all(inside.map(async (pid) => ((await isAlive(pid)) ? [pid] : [])))).flat();
      await eventually(async () => (await left()).length === 0);
      expect(await left()).toEqual([]);
    });
  }
});
