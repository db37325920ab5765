/**
 * js_eval runs in a worker process started from the built bundle
 * (dist/executor/bundle/js-eval-worker.js), never from TypeScript sources:
 * run `npm run build` before these tests (`npm test` does).
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyTool } from '../../../executor/define-tool.js';
import { createJsEvalTool } from '../../../executor/tools/js-eval.js';
import type { OutputLine } from '../../../shared/tool.js';
import { testPolicy } from '../../support/policies.js';
import { runTool } from '../../support/run-tool.js';
import { tempDir } from '../../support/temp-dir.js';

const tools: AnyTool[] = [];
function newTool(): AnyTool {
  const tool = createJsEvalTool();
  tools.push(tool);
  return tool;
}

afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose?.()));
});

/** js_eval worker processes started in `cwd` (each test has its own temp dir as workspace). */
async function workersIn(cwd: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8');
      if (cmdline.includes('js-eval-worker.js') && (await readlink(`/proc/${name}/cwd`)) === cwd) {
        const stat = await readFile(`/proc/${name}/stat`, 'utf8');
        if (stat[stat.lastIndexOf(')') + 2] !== 'Z') found.push(Number(name));
      }
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

async function gone(pid: number): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 10) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(10);
  }
  throw new Error(`process ${pid} did not exit`);
}

const RESET = 'the JavaScript context was reset';

describe('js_eval', () => {
  it('returns the completion value, keeps state across calls and awaits promises', async () => {
    await using dir = await tempDir();
    const tool = newTool();
    const policy = testPolicy(dir.path);
    expect(await runTool(tool, policy, { code: '1 + 1' })).toMatchObject({ isError: false, output: '2' });
    await runTool(tool, policy, { code: 'var count = 40; function inc(n) { return n + 1 }' });
    expect((await runTool(tool, policy, { code: 'inc(count + 1)' })).output).toBe('42');
    expect((await runTool(tool, policy, { code: 'Promise.resolve(6).then((x) => x * 7)' })).output).toBe(
      '42',
    );
    expect((await runTool(tool, policy, { code: '"plain string"' })).output).toBe('plain string');
    const object = await runTool(tool, policy, {
      code: '({ a: [1, "two", { b: null }], m: new Map([[1, 2]]) })',
    });
    expect(object.output).toBe('{ a: [1, "two", { b: null }], m: Map(1) { 1 => 2 } }');
    expect(object.display).toMatchObject({ type: 'eval', logs: 0 });
  });

  it('captures and streams console output, then the value', async () => {
    await using dir = await tempDir();
    const lines: OutputLine[] = [];
    const result = await runTool(
      newTool(),
      testPolicy(dir.path),
      { code: 'console.log("hello", { n: 1 }); console.error("bad\\nthing"); 7' },
      { lines },
    );
    expect(result.output).toBe('hello { n: 1 }\n[error] bad\nthing\n=> 7');
    expect(result.display).toMatchObject({ type: 'eval', logs: 2 });
    expect(lines.map((line) => `${line.stream}:${line.text}`)).toEqual([
      'stdout:hello { n: 1 }',
      'stderr:bad',
      'stderr:thing',
    ]);
  });

  it('reaches nothing of the host', async () => {
    await using dir = await tempDir();
    const result = await runTool(newTool(), testPolicy(dir.path), {
      code: `[typeof require, typeof process, typeof module, typeof setTimeout, typeof fetch,
        typeof Buffer, (function () { return typeof this.process })(),
        Function('return typeof process')()].join(',')`,
    });
    expect(result.output).toBe(Array(8).fill('undefined').join(','));
    const dynamicImport = await runTool(newTool(), testPolicy(dir.path), { code: 'import("node:fs")' });
    expect(dynamicImport).toMatchObject({ isError: true, code: 'failed' });
  });

  it('reports errors in the code with the message and the line in the snippet', async () => {
    await using dir = await tempDir();
    const tool = newTool();
    const policy = testPolicy(dir.path);
    const thrown = await runTool(tool, policy, { code: 'const a = 1;\nnull.boom;' });
    expect(thrown).toMatchObject({ isError: true, code: 'failed' });
    expect(thrown.output).toMatch(
      /^TypeError: Cannot read properties of null \(reading 'boom'\)\n {4}at snippet\.js:2:6$/,
    );
    const syntax = await runTool(tool, policy, { code: 'let = = 2' });
    expect(syntax).toMatchObject({
      code: 'failed',
      output: expect.stringMatching(/^SyntaxError: .*snippet\.js:1/),
    });
    const rejected = await runTool(tool, policy, {
      code: '(async () => { throw new RangeError("nope") })()',
    });
    expect(rejected).toMatchObject({ code: 'failed', output: expect.stringMatching(/^RangeError: nope\n/) });
    // The context survives the user's own errors.
    expect((await runTool(tool, policy, { code: 'a' })).output).toBe('1');
  });

  it('stops an endless loop at the timeout, resets the context and works again', async () => {
    await using dir = await tempDir();
    const tool = newTool();
    const policy = testPolicy(dir.path);
    await runTool(tool, policy, { code: 'var kept = 1' });
    const started = performance.now();
    const result = await runTool(tool, policy, { code: 'while (true) {}', timeout_ms: 300 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result).toMatchObject({ isError: true, code: 'timeout' });
    expect(result.output).toContain('timed out after 300 ms');
    expect(result.output).toContain(RESET);
    expect((await runTool(tool, policy, { code: 'typeof kept' })).output).toBe('undefined');
    expect((await runTool(tool, policy, { code: '2 * 21' })).output).toBe('42');
  });

  it('times out a promise that never settles', async () => {
    await using dir = await tempDir();
    const result = await runTool(newTool(), testPolicy(dir.path), {
      code: 'new Promise(() => {})',
      timeout_ms: 200,
    });
    expect(result).toMatchObject({ code: 'timeout', output: expect.stringContaining(RESET) });
  });

  it('survives running out of memory: the context is reset and the next call works', async () => {
    await using dir = await tempDir();
    const tool = newTool();
    // A small heap keeps the test quick; the tool caps it at min(policy, 128 MiB).
    const policy = testPolicy(dir.path, {
      limits: { ...testPolicy(dir.path).limits, memoryMiB: 32 },
    });
    await runTool(tool, policy, { code: 'var kept = 1' });
    const result = await runTool(tool, policy, {
      code: 'const hoard = []; while (true) hoard.push({ n: Math.random(), s: "x" + Math.random() })',
      timeout_ms: 30_000,
    });
    expect(result).toMatchObject({ isError: true, code: 'failed' });
    expect(result.output).toContain(
      '[js_eval ran out of memory (limit 32 MiB); the session was reset: variables and functions from earlier calls are gone]',
    );
    expect((await runTool(tool, policy, { code: 'typeof kept + typeof hoard' })).output).toBe(
      'undefinedundefined',
    );
  });

  it('starts a new worker after the old one is killed from outside, and says state was lost', async () => {
    await using dir = await tempDir();
    const tool = newTool();
    const policy = testPolicy(dir.path);
    await runTool(tool, policy, { code: 'var kept = 1' });
    const [pid] = await workersIn(dir.path);
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    await gone(pid!);
    const result = await runTool(tool, policy, { code: 'typeof kept' });
    expect(result).toMatchObject({
      isError: false,
      output: `undefined\n[${RESET}: variables and functions from earlier calls are gone]`,
    });
    const [newPid] = await workersIn(dir.path);
    expect(newPid).toBeDefined();
    expect(newPid).not.toBe(pid);
  });

  it('is cancelled through the signal, even in an endless loop', async () => {
    await using dir = await tempDir();
    const tool = newTool();
    const policy = testPolicy(dir.path);
    await runTool(tool, policy, { code: '0' }); // Worker up, so the timing below is the loop's.
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 200);
    const result = await runTool(
      tool,
      policy,
      { code: 'while (true) {}', timeout_ms: 30_000 },
      {
        signal: controller.signal,
      },
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result).toMatchObject({ isError: true, code: 'cancelled' });
    expect(result.output).toContain(RESET);
    expect((await runTool(tool, policy, { code: '"again"' })).output).toBe('again');
  });

  it('gives each tool its own worker and state, and dispose leaves no process', async () => {
    await using dir = await tempDir();
    const policy = testPolicy(dir.path);
    const first = newTool();
    const second = newTool();
    await runTool(first, policy, { code: 'var mine = "first"' });
    expect((await runTool(second, policy, { code: 'typeof mine' })).output).toBe('undefined');
    expect(await workersIn(dir.path)).toHaveLength(2);
    await Promise.all([first.dispose?.(), second.dispose?.()]);
    expect(await workersIn(dir.path)).toEqual([]);
  });

  it('bounds a console flood and says how much was dropped', async () => {
    await using dir = await tempDir();
    const policy = testPolicy(dir.path);
    const result = await runTool(newTool(), policy, {
      code: 'for (let i = 0; i < 100000; i++) console.log("line " + i); "end"',
    });
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(policy.limits.outputBytes);
    expect(result.output).toMatch(/^line 0\nline 1\n/);
    expect(result.output).toMatch(/\n\[\d+ console lines dropped: output limit\]\n=> end$/);
  });

  it('rejects a timeout over the maximum', async () => {
    await using dir = await tempDir();
    const result = await runTool(newTool(), testPolicy(dir.path), { code: '1', timeout_ms: 60_000 });
    expect(result).toMatchObject({ code: 'invalid_input' });
  });
});
