/**
 * A command's output as a shell or a terminal would give it: Node hands a child's stdout and
 * stderr over as unix sockets, which `> /dev/stderr` cannot open (ENXIO); skate-confine
 * (`--pipe-output`) gives the command pipes and copies them out. Through a real executor, in the
 * real sandbox and unconfined.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { unconfinedLauncher } from '../../harness/sandbox/executor-launch.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { testPolicy } from '../support/policies.js';
import { parseShell, type SandboxedExecutor, sandboxedExecutor } from '../support/sandboxed-executor.js';
import { type TempDir, tempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

const BY_PATH = [
  'echo to-stdout > /dev/stdout',
  'echo to-stderr > /dev/stderr',
  'echo teed | tee /dev/stderr > /dev/null',
  'exec 3>/dev/stderr; echo through-fd-3 >&3',
  "python3 -c \"open('/dev/stdout', 'w').write('python\\\\n')\" 2>/dev/null || echo python",
  'echo done',
].join('; ');

function expectAllThrough(output: string, exitCode: number | null): void {
  expect(output).not.toMatch(/No such device or address/);
  for (const line of ['to-stdout', 'to-stderr', 'teed', 'through-fd-3', 'python', 'done']) {
    expect(output).toContain(`${line}\n`);
  }
  expect(exitCode).toBe(0);
}

describe.skipIf(noSandbox)('shell output in the kernel sandbox', () => {
  let dir: TempDir;
  let executor: SandboxedExecutor;

  beforeAll(async () => {
    dir = await tempDir();
    executor = await sandboxedExecutor(testPolicy(dir.path));
  });

  afterAll(async () => {
    await executor?.[Symbol.asyncDispose]();
    await dir?.[Symbol.asyncDispose]();
  });

  it('lets a command open /dev/stdout and /dev/stderr by path', async () => {
    const run = await executor.sh(BY_PATH);
    expectAllThrough(run.output, run.exitCode);
  });

  it('gives the command pipes, keeps each stream in order, and nothing else open', async () => {
    const run = await executor.sh(
      'for i in 1 2 3; do echo "out $i"; echo "err $i" >&2; done; ls -l /proc/self/fd/ | grep -o "[0-9]* -> .*"',
    );
    // Each stream keeps its order; between the two, a burst interleaves by chunk (as it did on sockets).
    expect(run.output.match(/out \d/g)).toEqual(['out 1', 'out 2', 'out 3']);
    expect(run.output.match(/err \d/g)).toEqual(['err 1', 'err 2', 'err 3']);
    expect(run.output).toMatch(/^1 -> pipe:/m);
    expect(run.output).toMatch(/^2 -> pipe:/m);
    expect(run.output).not.toMatch(/socket:/);
  });

  it('still bounds a flood written by path, and keeps serving', async () => {
    const run = await executor.sh('head -c 3000000 /dev/zero | tr "\\0" x > /dev/stderr; echo after');
    expect(run.exitCode).toBe(0);
    expect(run.result.output.length).toBeLessThan(300 * 1024);
    expect(run.output).toContain('after');
    expect(await executor.sh('echo still-here')).toMatchObject({ exitCode: 0, output: 'still-here\n' });
  });

  it('passes everything a command wrote before it exits, and what a child wrote before it ended', async () => {
    const run = await executor.sh(
      '(echo from-child > /dev/stderr) & wait; printf "no newline" > /dev/stdout',
    );
    expect(run.output).toContain('from-child\n');
    expect(run.output).toContain('no newline');
  });
});

describe('shell output unconfined (full policy)', () => {
  it('lets a command open /dev/stdout and /dev/stderr by path there too', async () => {
    await using dir = await tempDir();
    const client = await ExecutorClient.spawn({
      policy: testPolicy(dir.path),
      launcher: unconfinedLauncher(),
    });
    try {
      const run = parseShell(await client.callTool('shell', { command: BY_PATH }));
      expectAllThrough(run.output, run.exitCode);
    } finally {
      await client.shutdown();
    }
  });
});
