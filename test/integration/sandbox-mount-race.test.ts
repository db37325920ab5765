import { spawn } from 'node:child_process';
import { mkdir, readdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { prepareSandbox } from '../../harness/sandbox/prepare-sandbox.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { hostDir } from '../support/host-dir.js';
import { testPolicy } from '../support/policies.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;
const hasPython = (await run('python3', ['-c', 'pass'], {})).code === 0;

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', () => resolve({ code: 127, stderr }));
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

describe.skipIf(noSandbox)('sandbox escapes: racing the mounts', () => {
  it('refuses a pinned path that is, or passes through, a symlink', async () => {
    await using root = await hostDir();
    const real = path.join(root.path, 'real');
    await mkdir(real);
    await symlink(real, path.join(root.path, 'link'));
    const confine = distPath('bin', 'skate-confine');
    const readBack = ['sh', '-c', 'readlink /proc/self/fd/$1', 'sh'];
    const ok = await run(confine, ['--pin-fds', '--', ...readBack, `@pin:${real}`], {});
    expect(ok.code).toBe(0);
    for (const target of [
      path.join(root.path, 'link'),
      path.join(root.path, 'link', '.'),
      `${real}/../link`,
    ]) {
      const refused = await run(confine, ['--pin-fds', '--', ...readBack, `@pin:${target}`], {});
      expect(refused.code, target).toBe(126);
    }
  });

  it.skipIf(!hasPython)(
    'mounts exactly the directory it checked, while another process keeps swapping it for a symlink',
    async () => {
      await using root = await hostDir();
      const ws = path.join(root.path, 'ws');
      const docs = path.join(ws, 'docs');
      const elsewhere = path.join(root.path, 'elsewhere');
      await mkdir(docs, { recursive: true });
      await mkdir(elsewhere);
      await symlink(elsewhere, path.join(ws, 'docs.link'));
      // What a parent agent's sandbox, allowed to write the workspace, could do while a sub-agent with
      // the narrower write root `docs` is being started: swap it with a symlink, atomically, in a loop
      // (renameat2 with RENAME_EXCHANGE, so `docs` always exists as one or the other).
      const swapper = spawn(
        'python3',
        [
          '-c',
          'import ctypes, os, sys\nlibc = ctypes.CDLL(None)\nos.chdir(sys.argv[1])\nwhile True: libc.renameat2(-100, b"docs", -100, b"docs.link", 2)',
          ws,
        ],
        { stdio: 'ignore' },
      );
      try {
        const policy = testPolicy(ws, { write: { allow: [docs] } });
        const deadline = Date.now() + 3_000;
        for (let attempt = 0; Date.now() < deadline; attempt++) {
          const sandbox = await prepareSandbox(policy);
          try {
            const [command, ...args] = sandbox.argv;
            // Fails whenever the swap is caught (refused, or nothing writable): that is fine. Landing in
            // `elsewhere` is not. A race, so probabilistic: with bubblewrap binding by path again, about
            // one run in three catches it here; the test above checks the mechanism itself.
            await run(command, [...args, 'sh', '-c', `echo escaped > ${docs}/probe-${attempt}`], sandbox.env);
          } finally {
            await sandbox.release();
          }
        }
      } finally {
        swapper.kill('SIGKILL');
      }
      expect(await readdir(elsewhere)).toEqual([]);
    },
  );
});
