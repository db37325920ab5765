import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A temporary directory removed when the `await using` scope ends. */
export interface TempDir extends AsyncDisposable {
  readonly path: string;
}

/**
 * A fresh directory under `parent` (default: the system temp dir). Note that
 * /tmp is private inside sandboxes: tests that need a host path visible (and
 * read-only) inside one should pass a parent outside it.
 */
export async function tempDir(prefix = 'skate-test-', parent = tmpdir()): Promise<TempDir> {
  await mkdir(parent, { recursive: true });
  // realpath: /tmp may be a symlink, and policies compare real paths.
  const dir = await realpath(await mkdtemp(path.join(parent, prefix)));
  return {
    path: dir,
    async [Symbol.asyncDispose]() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}
