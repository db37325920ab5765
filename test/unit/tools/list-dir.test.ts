import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listDirTool } from '../../../executor/tools/list-dir.js';
import { testPolicy } from '../../support/policies.js';
import { runTool } from '../../support/run-tool.js';
import { tempDir } from '../../support/temp-dir.js';

/** Creates files (and their directories) under `root`; a name ending in `/` is an empty directory. */
async function tree(root: string, names: string[]): Promise<void> {
  for (const name of names) {
    const full = path.join(root, name);
    if (name.endsWith('/')) await mkdir(full, { recursive: true });
    else {
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, name);
    }
  }
}

describe('list_dir', () => {
  it('lists directories first, then files, sorted, with hidden entries counted', async () => {
    await using dir = await tempDir();
    await tree(dir.path, ['b.txt', 'a.txt', 'src/index.ts', 'docs/', '.hidden', 'Z.md']);
    const result = await runTool(listDirTool, testPolicy(dir.path), {});
    expect(result).toMatchObject({ isError: false });
    expect(result.output).toBe(
      'docs/\nsrc/\nZ.md\na.txt\nb.txt\n[1 hidden entry not shown; pass include_hidden: true]',
    );
    expect(result.display).toEqual({ type: 'listing', path: '.', entries: 5, truncated: false });
    const all = await runTool(listDirTool, testPolicy(dir.path), { include_hidden: true });
    expect(all.output).toBe('docs/\nsrc/\n.hidden\nZ.md\na.txt\nb.txt');
  });

  it('indents deeper levels and shows .git and node_modules without expanding them', async () => {
    await using dir = await tempDir();
    await tree(dir.path, [
      'src/lib/deep/x.ts',
      'src/lib/a.ts',
      'src/main.ts',
      'node_modules/pkg/index.js',
      '.git/HEAD',
      'README.md',
    ]);
    const result = await runTool(listDirTool, testPolicy(dir.path), { depth: 3, include_hidden: true });
    expect(result.output).toBe(
      [
        '.git/ (not expanded)',
        'node_modules/ (not expanded)',
        'src/',
        '  lib/',
        '    deep/',
        '    a.ts',
        '  main.ts',
        'README.md',
      ].join('\n'),
    );
    // Asked for by name, node_modules is listed like any directory.
    const inside = await runTool(listDirTool, testPolicy(dir.path), { path: 'node_modules', depth: 2 });
    expect(inside.output).toBe('pkg/\n  index.js');
  });

  it('marks symlinks with their targets and does not follow them', async () => {
    await using dir = await tempDir();
    await tree(dir.path, ['real/inner.txt', 'file.txt']);
    await symlink('real', path.join(dir.path, 'dirlink'));
    await symlink('file.txt', path.join(dir.path, 'filelink'));
    await symlink('missing', path.join(dir.path, 'dangling'));
    const result = await runTool(listDirTool, testPolicy(dir.path), { depth: 2 });
    expect(result.output).toBe(
      [
        'dirlink/ -> real',
        'real/',
        '  inner.txt',
        'dangling -> missing (broken link)',
        'file.txt',
        'filelink -> file.txt',
      ].join('\n'),
    );
  });

  it('leaves out denied entries, and links to them, entirely', async () => {
    await using dir = await tempDir();
    await tree(dir.path, ['.env', 'app/.env', 'app/main.ts', 'secrets/key', 'ok.txt']);
    await symlink('secrets/key', path.join(dir.path, 'key-link'));
    const policy = testPolicy(dir.path, {
      read: { allow: ['/'], deny: ['**/.env', path.join(dir.path, 'secrets')] },
    });
    const result = await runTool(listDirTool, policy, { depth: 2, include_hidden: true });
    expect(result.output).toBe('app/\n  main.ts\nok.txt');
    expect(result.output).not.toMatch(/\.env|secrets|key/);
  });

  it('stops at 1000 entries, keeping the shallow ones, and says so', async () => {
    await using dir = await tempDir();
    await tree(dir.path, ['top.txt', 'many/']);
    await Promise.all(
      Array.from({ length: 1100 }, (_, i) =>
        writeFile(path.join(dir.path, 'many', `f${String(i).padStart(4, '0')}`), ''),
      ),
    );
    const result = await runTool(listDirTool, testPolicy(dir.path), { depth: 2 });
    const lines = result.output.split('\n');
    expect(lines.slice(0, 3)).toEqual(['many/', '  f0000', '  f0001']);
    expect(lines).toContain('top.txt');
    expect(lines).toHaveLength(1001);
    expect(lines.at(-1)).toMatch(/^\[listing stopped at 1000 entries;/);
    expect(result.display).toEqual({ type: 'listing', path: '.', entries: 1000, truncated: true });
  });

  it('fails clearly on a missing path, a file and a denied directory', async () => {
    await using dir = await tempDir();
    await tree(dir.path, ['f.txt', 'secrets/key']);
    const policy = testPolicy(dir.path, { read: { allow: ['/'], deny: [path.join(dir.path, 'secrets')] } });
    expect(await runTool(listDirTool, policy, { path: 'nope' })).toMatchObject({
      code: 'not_found',
      output: 'nope does not exist',
    });
    expect(await runTool(listDirTool, policy, { path: 'f.txt' })).toMatchObject({
      code: 'invalid_input',
      output: 'f.txt is a file, not a directory; use read_file',
    });
    expect(await runTool(listDirTool, policy, { path: 'secrets' })).toMatchObject({ code: 'denied' });
    expect(await runTool(listDirTool, policy, { depth: 9 })).toMatchObject({ code: 'invalid_input' });
  });

  it('says when a directory is empty', async () => {
    await using dir = await tempDir();
    const result = await runTool(listDirTool, testPolicy(dir.path), { path: dir.path });
    expect(result.output).toBe('(empty directory)');
  });
});
