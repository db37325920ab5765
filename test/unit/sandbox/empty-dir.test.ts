import { mkdir, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { emptyDirIn } from '../../../harness/sandbox/empty-dir.js';
import { tempDir } from '../../support/temp-dir.js';

describe('emptyDirIn', () => {
  it('makes one empty, read-only directory in the cache and reuses it', async () => {
    await using dir = await tempDir();
    const cache = path.join(dir.path, 'cache', 'skate');
    const first = emptyDirIn(cache);
    expect(first).toBe(path.join(cache, 'empty'));
    expect(emptyDirIn(cache)).toBe(first);
    expect((await stat(first)).mode & 0o777).toBe(0o555);
    expect(await readdir(first)).toEqual([]);
  });

  it('falls back to a temporary directory when the cached one is not empty or is a link', async () => {
    await using dir = await tempDir();
    const cache = path.join(dir.path, 'skate');
    await mkdir(path.join(cache, 'empty'), { recursive: true });
    await writeFile(path.join(cache, 'empty', 'planted'), 'x');
    const fallback = emptyDirIn(cache);
    // A temporary one, removed at the process's exit; a test worker outlives this test, so now.
    onTestFinished(() => rm(fallback, { recursive: true, force: true }));
    expect(fallback).not.toBe(path.join(cache, 'empty'));
    expect(await readdir(fallback)).toEqual([]);

    const linked = path.join(dir.path, 'linked');
    await mkdir(linked);
    await mkdir(path.join(dir.path, 'elsewhere'), { mode: 0o555 });
    await symlink(path.join(dir.path, 'elsewhere'), path.join(linked, 'empty'));
    const instead = emptyDirIn(linked);
    onTestFinished(() => rm(instead, { recursive: true, force: true }));
    expect(instead).not.toBe(path.join(linked, 'empty'));
  });
});
