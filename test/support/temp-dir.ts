import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A temporary directory removed when the `await using` scope ends. */
export interface TempDir extends AsyncDisposable {
  readonly path: string;
}

export async function tempDir(prefix = 'skate-test-'): Promise<TempDir> {
  // realpath: /tmp may be a symlink, and policies compare real paths.
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), prefix)));
  return {
    path: dir,
    async [Symbol.asyncDispose]() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}
