import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import module from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

/** Every entry under `dir`: a file's SHA-256, or `dir`. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  for (const name of (await readdir(dir, { recursive: true })).sort()) {
    const file = path.join(dir, name);
    entries[name] = (await stat(file)).isDirectory()
      ? 'dir'
      : createHash('sha256')
          .update(await readFile(file))
          .digest('hex');
  }
  return entries;
}

async function codeCaches(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith('.v8'));
}

describe('the CLI code cache', () => {
  it('is made by the first start, used by the next, and replaced when V8 refuses it', async () => {
    await using home = await tempDir('skate-code-cache-');
    const env = { ...process.env, XDG_CACHE_HOME: home.path, SKATE_TRACE_START: '1' };
    const dir = path.join(home.path, 'skate', 'code');

    const first = await runCli(['--version'], { env });
    expect(first.stdout).toMatch(/^skate \d+\.\d+\.\d+\n$/);
    expect(first.stderr).toContain('code cache: miss');
    const [file, ...others] = await codeCaches(dir);
    expect(others).toEqual([]);
    expect(file).toContain(`-info-${process.version}-${process.arch}.v8`);
    // Node ≥ 22.1's own module cache goes beside it, not to the shared temp folder.
    const nodeModule = module as { enableCompileCache?: unknown };
    expect(existsSync(path.join(dir, 'node'))).toBe(typeof nodeModule.enableCompileCache === 'function');

    const second = await runCli(['--version'], { env });
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toContain('code cache: hit');

    // Another kind of run keeps a cache of its own.
    const policy = await runCli(['policy', 'show', 'readonly'], { env });
    expect(policy.code).toBe(0);
    expect(policy.stderr).toContain('code cache: miss');
    expect(await codeCaches(dir)).toHaveLength(2);

    // A damaged cache is refused by V8, the run goes on, and the cache is made again.
    await writeFile(path.join(dir, file!), 'not a code cache');
    const damaged = await runCli(['--version'], { env });
    expect(damaged.stdout).toBe(first.stdout);
    expect(damaged.stderr).toContain('code cache: rejected');
    expect((await readFile(path.join(dir, file!), 'utf8')).startsWith('not a code cache')).toBe(false);
    expect((await runCli(['--version'], { env })).stderr).toContain('code cache: hit');
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it.skipIf(noSandbox)(
    'cannot be made or changed by a sandboxed command, even when the workspace holds it (execute-git)',
    async () => {
      // A home directory as the workspace: the cache lies inside the one write root.
      await using home = await hostDir('code-cache-');
      const cache = path.join(home.path, '.cache');
      const skateCache = path.join(cache, 'skate');
      const code = path.join(skateCache, 'code');
      const env = { ...process.env, XDG_CACHE_HOME: cache };
      const sandbox = (script: string) =>
        runCli(['sandbox', '--policy', 'execute-git', '--workspace', home.path, '--', 'sh', '-c', script], {
          env,
        });

      // Before the cache exists: the harness makes its folder before the sandbox, then keeps it read-only.
      const planted = await sandbox(
        `mkdir -p ${code}; echo evil > ${code}/cli-planted.v8; echo written > ${home.path}/ok; echo done`,
      );
      expect(planted.stdout).toContain('done');
      expect(await readFile(path.join(home.path, 'ok'), 'utf8')).toBe('written\n');
      expect(existsSync(path.join(code, 'cli-planted.v8'))).toBe(false);

      expect((await runCli(['--version'], { env })).code).toBe(0);
      const [file] = await codeCaches(code);
      expect(file).toBeDefined();
      const before = await snapshot(skateCache);
      const target = path.join(code, file!);
      const attempt = await sandbox(
        [
          `echo evil > ${target}`,
          `echo evil >> ${target}`,
          `rm -f ${target}`,
          `echo evil > ${code}/cli-new.v8`,
          `mkdir -p ${code}/node && echo evil > ${code}/node/evil`,
          `mv ${code} ${skateCache}/moved`,
          `mv ${skateCache} ${cache}/moved`,
          `mv ${cache} ${home.path}/moved`,
          'echo done',
        ].join('; '),
      );
      expect(attempt.stdout).toContain('done');
      expect(await snapshot(skateCache)).toEqual(before);
      expect(existsSync(path.join(cache, 'moved'))).toBe(false);
      expect(existsSync(path.join(home.path, 'moved'))).toBe(false);
    },
  );
});
