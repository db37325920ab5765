import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirsBeneath, OpenedDir } from '../../../harness/opened-dir.js';
import { tempDir } from '../../support/temp-dir.js';

describe('OpenedDir: creating on the host without following a link', () => {
  it('makes missing directories one name at a time beneath the root', async () => {
    await using root = await tempDir();
    await makeDirsBeneath(root.path, path.join(root.path, 'a', 'b', 'c'));
    expect(await readdir(path.join(root.path, 'a', 'b'))).toEqual(['c']);
    // Existing ones are fine.
    await makeDirsBeneath(root.path, path.join(root.path, 'a', 'b', 'c'));
    await expect(makeDirsBeneath(root.path, path.join(root.path, '..', 'x'))).rejects.toThrow(
      /does not lie beneath/,
    );
  });

  it('refuses a symlink at any step, and creates nothing behind it', async () => {
    await using root = await tempDir();
    await using outside = await tempDir();
    await mkdir(path.join(root.path, 'a'));
    await symlink(outside.path, path.join(root.path, 'a', 'b'));
    await expect(makeDirsBeneath(root.path, path.join(root.path, 'a', 'b', 'c'))).rejects.toThrow(
      /symbolic link or not a directory/,
    );
    expect(await readdir(outside.path)).toEqual([]);
  });

  it('refuses a root reached through a symlink', async () => {
    await using root = await tempDir();
    await mkdir(path.join(root.path, 'real', 'sub'), { recursive: true });
    await symlink(path.join(root.path, 'real'), path.join(root.path, 'link'));
    await expect(OpenedDir.open(path.join(root.path, 'link'))).rejects.toThrow(/symbolic link/);
    await expect(OpenedDir.open(path.join(root.path, 'link', 'sub'))).rejects.toThrow(
      /reached through a symbolic link/,
    );
  });

  it('creates a file once, keeps an existing one, and refuses a link or a FIFO without waiting', async () => {
    await using root = await tempDir();
    await using outside = await tempDir();
    await using dir = await OpenedDir.open(root.path);
    expect(await dir.file('plan.md', 'first\n')).toBe(true);
    expect(await dir.file('plan.md', 'second\n')).toBe(false);
    expect(await readFile(path.join(root.path, 'plan.md'), 'utf8')).toBe('first\n');
    await writeFile(path.join(outside.path, 'target'), 'original\n');
    await symlink(path.join(outside.path, 'target'), path.join(root.path, 'linked.md'));
    await expect(dir.file('linked.md')).rejects.toThrow(/is a symbolic link/);
    await symlink(path.join(outside.path, 'missing'), path.join(root.path, 'dangling.md'));
    await expect(dir.file('dangling.md')).rejects.toThrow(/is a symbolic link/);
    expect(await readdir(outside.path)).toEqual(['target']);
    execFileSync('mkfifo', [path.join(root.path, 'fifo.md')]);
    await expect(dir.file('fifo.md')).rejects.toThrow(/not a regular file/);
  });
});
