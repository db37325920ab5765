import { spawnSync } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureWriteRoots } from '../../harness/agents/ensure-write-roots.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { hostDir } from '../support/host-dir.js';
import { testPolicy } from '../support/policies.js';
import { eventually } from '../support/processes.js';
import type { SandboxedExecutor } from '../support/sandboxed-executor.js';
import { sandboxedExecutor } from '../support/sandboxed-executor.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;
const hasPython = spawnSync('python3', ['-c', 'pass']).status === 0;

/** How long each race runs once the swapping has begun: hundreds of tries, short enough for CI. */
const RACE_MS = 2_500;
/** The file whose appearance in the workspace stops a swapper. */
const STOP = 'stop-swapping';

interface Swapping {
  /** Ends the swapping and waits for the command. */
  stop(): Promise<void>;
}

/**
 * A command in `executor`'s sandbox exchanging the names `a` and `b` in `dir` (relative to the
 * workspace `ws`) atomically, with renameat2 and RENAME_EXCHANGE (so each name always exists, as
 * one or the other), until the test stops it. Returns once the host has seen `a` become a symlink,
 * so the race runs for its whole time whatever Python takes to start on a busy machine.
 */
async function startSwapping(
  executor: SandboxedExecutor,
  ws: string,
  dir: string,
  a: string,
  b: string,
): Promise<Swapping> {
  const script = [
    'import ctypes, os, sys, time',
    'libc = ctypes.CDLL(None)',
    `os.chdir("${dir}")`,
    'end = time.time() + 30',
    `while time.time() < end and not os.path.exists("${ws}/${STOP}"):`,
    `    for _ in range(1000): libc.renameat2(-100, b"${a}", -100, b"${b}", 2)`,
  ].join('\n');
  const running = executor.sh(`python3 -c '${script}'; echo swapped`);
  const raced = path.join(ws, dir, a);
  const began = await eventually(async () => (await lstat(raced)).isSymbolicLink(), 15_000);
  expect(began, 'the swapping command never started').toBe(true);
  return {
    async stop() {
      await writeFile(path.join(ws, STOP), '');
      expect((await running).output).toContain('swapped');
    },
  };
}

describe.skipIf(noSandbox || !hasPython)('races between a check and its use', () => {
  it('a sub-agent’s missing write roots are made beneath the parent’s root, while the parent’s command swaps a directory on the way for a symlink', async () => {
    await using root = await hostDir('race-roots-');
    const ws = path.join(root.path, 'ws');
    const outside = path.join(root.path, 'outside');
    await mkdir(path.join(ws, 'ens', 'b'), { recursive: true });
    await mkdir(outside);
    await symlink(outside, path.join(ws, 'ens', 'b.link'));
    // The parent agent's executor, allowed to write the workspace: its command races each start.
    await using parent = await sandboxedExecutor(testPolicy(ws));
    const swapping = await startSwapping(parent, ws, 'ens', 'b', 'b.link');
    let attempts = 0;
    let made = 0;
    for (const deadline = Date.now() + RACE_MS; Date.now() < deadline; attempts++) {
      // What spawn_agent does before a child's sandbox is built, for `write_paths: ['ens/b/c/eN']`.
      const problems = await ensureWriteRoots([path.join(ws, 'ens', 'b', 'c', `e${attempts}`)], [ws]);
      if (problems.length === 0) made++;
    }
    await swapping.stop();
    // On the host: nothing was created through the link, however often the swap was caught.
    expect(await readdir(outside)).toEqual([]);
    expect(attempts).toBeGreaterThan(50);
    expect(made).toBeGreaterThan(0);
  });

  it('read_file never returns a denied file that a command keeps swapping in for the path it read', async () => {
    await using root = await hostDir('race-read-');
    const ws = path.join(root.path, 'ws');
    await mkdir(path.join(ws, 'docs'), { recursive: true });
    const policy = testPolicy(ws, { read: { allow: ['/'], deny: [`${ws}/**/.env`] } });
    await using executor = await sandboxedExecutor(policy);
    // Made after the sandbox started, so no mount hides it: only the tool's own check can.
    const setup = await executor.sh(
      `printf 'SECRET=hunter2\\n' > .env; printf 'harmless\\n' > docs/x; ln -s ${ws}/.env docs/x.link`,
    );
    expect(setup.exitCode).toBe(0);
    expect(await readFile(path.join(ws, '.env'), 'utf8')).toBe('SECRET=hunter2\n');
    const swapping = await startSwapping(executor, ws, 'docs', 'x', 'x.link');
    const leaks: string[] = [];
    let harmless = 0;
    let denied = 0;
    let calls = 0;
    for (const deadline = Date.now() + RACE_MS; Date.now() < deadline; calls++) {
      const result = await executor.tool('read_file', { path: 'docs/x' });
      if (`${result.output}${JSON.stringify(result.display ?? '')}`.includes('hunter2'))
        leaks.push(result.output);
      else if (result.output.includes('harmless')) harmless++;
      else if (result.isError && /denied/.test(result.output)) denied++;
    }
    await swapping.stop();
    // What reached the model: never the secret, though the swap was caught both ways.
    expect(leaks).toEqual([]);
    expect(calls).toBeGreaterThan(50);
    expect(harmless).toBeGreaterThan(0);
    expect(denied).toBeGreaterThan(0);
  });
});
