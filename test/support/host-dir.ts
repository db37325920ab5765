import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { TempDir } from './temp-dir.js';

/**
 * A temporary directory the sandbox can see. Unlike `tempDir()` (under /tmp,
 * which every sandbox replaces with its own), paths here are visible, read-only,
 * inside a sandbox, so a test can tell a blocked write from one that landed in a
 * private /tmp. Removed when the `await using` scope ends.
 */
export async function hostDir(prefix = 'escape-'): Promise<TempDir> {
  const parent = path.join(homedir(), '.cache', 'skate-tests');
  await mkdir(parent, { recursive: true });
  const dir = await realpath(await mkdtemp(path.join(parent, prefix)));
  return {
    path: dir,
    async [Symbol.asyncDispose]() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}
