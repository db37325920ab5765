/**
 * The resource-limits class (issue #20, item 8): js_eval's memory limit bounds its worker's whole
 * memory, not only the isolate's heap. WebAssembly memories, big (Shared)ArrayBuffers and a string
 * doubled past the heap limit each get a clear error, the worker's peak RSS (read on the host from
 * /proc) stays under the limit plus a stated margin, and the executor answers the next call.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { testPolicy } from '../support/policies.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { type SandboxedExecutor, sandboxedExecutor } from '../support/sandboxed-executor.js';
import { type TempDir, tempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

/** js_eval's limit under a policy allowing more: min(policy, 128 MiB). */
const LIMIT_MIB = 128;
/**
 * Over the limit, what the worker may hold: its own Node (about 50 MiB resident) and the headroom
 * the cap leaves above the isolate's limit (`WORKER_HEADROOM_MIB`, 96 MiB), with room to spare.
 * Measured peaks: 216-250 MiB on Node 20 and 24. Before the cap, 1.07 GiB (wasm) and 431 MiB (string).
 */
const MARGIN_MIB = 192;

/** The js_eval workers under an executor, as the host sees them. */
async function workers(executorPid: number): Promise<number[]> {
  const found: number[] = [];
  for (const pid of await processDescendants(executorPid)) {
    if ((await commandLine(pid)).includes('js-eval-worker.js')) found.push(pid);
  }
  return found;
}

async function statusKiB(pid: number, field: string): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
}

/** Runs `work` while sampling the peak RSS (VmHWM) of every js_eval worker under the executor. */
async function peakRssMiB(executorPid: number, work: () => Promise<void>): Promise<number> {
  let peak = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      for (const pid of await workers(executorPid)) peak = Math.max(peak, await statusKiB(pid, 'VmHWM'));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await sampling;
  }
  return peak / 1024;
}

describe.skipIf(noSandbox)("js_eval's memory limit bounds its worker's whole memory", () => {
  let dir: TempDir;
  let executor: SandboxedExecutor;
  let executorPid: number;

  beforeAll(async () => {
    dir = await tempDir();
    executor = await sandboxedExecutor(testPolicy(dir.path));
    executorPid = executor.client.pid!;
  });

  afterAll(async () => {
    await executor?.[Symbol.asyncDispose]();
    await dir?.[Symbol.asyncDispose]();
  });

  /** The executor still serves: a command and a fresh evaluation both answer. */
  async function expectServing(): Promise<void> {
    expect((await executor.sh('echo still-serving')).output).toBe('still-serving\n');
    expect(await executor.tool('js_eval', { code: '6 * 7' })).toMatchObject({ isError: false, output: '42' });
  }

  it('caps the worker with the kernel before any code runs', async () => {
    await executor.tool('js_eval', { code: '1' });
    const [pid] = await workers(executorPid);
    expect(pid).toBeDefined();
    const limits = await readFile(`/proc/${pid}/limits`, 'utf8');
    const dataLimit = Number(/^Max data size\s+(\d+)/m.exec(limits)?.[1]);
    // The floor (Node, isolated-vm and one isolate), the limit, and the headroom: finite, and not far.
    expect(dataLimit / 2 ** 20).toBeGreaterThan(LIMIT_MIB);
    expect(dataLimit / 2 ** 20).toBeLessThan(LIMIT_MIB + 1536);
  });

  it('refuses WebAssembly memory past the limit, growing or new, with an error the code can catch', async () => {
    await executor.tool('js_eval', { code: 'var kept = "state"' });
    let results: { output: string; isError: boolean }[] = [];
    const peak = await peakRssMiB(executorPid, async () => {
      results = [
        await executor.tool('js_eval', {
          code: 'const big = new WebAssembly.Memory({ initial: 16384 }); new Uint8Array(big.buffer).fill(1); big.buffer.byteLength',
          timeout_ms: 30_000,
        }),
        await executor.tool('js_eval', {
          code: 'const grown = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); for (let i = 0; i < 16; i++) { grown.grow(1024); new Uint8Array(grown.buffer).fill(1) } grown.buffer.byteLength',
          timeout_ms: 30_000,
        }),
        await executor.tool('js_eval', {
          code: 'const many = []; for (let i = 0; i < 64; i++) { const m = new WebAssembly.Memory({ initial: 256 }); new Uint8Array(m.buffer).fill(1); many.push(m) } many.length',
          timeout_ms: 30_000,
        }),
      ];
    });
    expect(peak).toBeLessThan(LIMIT_MIB + MARGIN_MIB);
    for (const result of results) {
      expect(result.isError, result.output).toBe(true);
      expect(result.output).toMatch(/^RangeError: WebAssembly\.Memory/);
      expect(result.output).toContain(`js_eval's memory limit is ${LIMIT_MIB} MiB`);
    }
    // A refused allocation is the code's own error: the session, and its state, go on.
    expect((await executor.tool('js_eval', { code: 'kept' })).output).toBe('state');
    await expectServing();
  }, 60_000);

  it('refuses an ArrayBuffer or SharedArrayBuffer hoard past the limit', async () => {
    let results: { output: string; isError: boolean }[] = [];
    const peak = await peakRssMiB(executorPid, async () => {
      results = [
        await executor.tool('js_eval', { code: 'new ArrayBuffer(1024 * 1024 * 1024).byteLength' }),
        await executor.tool('js_eval', {
          code: '(() => { const hoard = []; for (let i = 0; i < 64; i++) { const b = new SharedArrayBuffer(16 << 20); new Uint8Array(b).fill(1); hoard.push(b) } return hoard.length })()',
          timeout_ms: 30_000,
        }),
      ];
    });
    expect(peak).toBeLessThan(LIMIT_MIB + MARGIN_MIB);
    for (const result of results) {
      expect(result.isError, result.output).toBe(true);
      expect(result.output).toMatch(/RangeError: Array buffer allocation failed|js_eval ran out of memory/);
    }
    await expectServing();
  });

  it('stops a string doubled past the limit, says so, resets the session and keeps serving', async () => {
    await executor.tool('js_eval', { code: 'var before = 1' });
    let result: { output: string; isError: boolean } | undefined;
    const started = performance.now();
    const peak = await peakRssMiB(executorPid, async () => {
      result = await executor.tool('js_eval', {
        code: 'let s = "ab"; for (let i = 0; i < 29; i++) { s = s + s; s.charCodeAt(3) } s.length',
        timeout_ms: 30_000,
      });
    });
    expect(peak).toBeLessThan(LIMIT_MIB + MARGIN_MIB);
    // Ended by the memory limit, not by the timeout.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(result).toMatchObject({ isError: true });
    expect(result!.output).toContain(
      `js_eval ran out of memory (limit ${LIMIT_MIB} MiB); the session was reset`,
    );
    expect((await executor.tool('js_eval', { code: 'typeof before' })).output).toBe('undefined');
    await expectServing();
  }, 60_000);
});
