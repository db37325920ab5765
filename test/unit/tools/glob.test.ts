import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyTool } from '../../../executor/define-tool.js';
import { findRipgrep } from '../../../executor/fs/ripgrep.js';
import { globTool } from '../../../executor/tools/glob.js';
import type { ResolvedPolicy } from '../../../shared/policy.js';
import { testPolicy } from '../../support/policies.js';
import { runTool as runToolWith } from '../../support/run-tool.js';
import { tempDir } from '../../support/temp-dir.js';

/** Writes files under `root`, each modified `age` seconds before a fixed moment (older later in the list). */
async function files(root: string, names: string[]): Promise<void> {
  const now = Date.now() / 1000;
  for (const [i, name] of names.entries()) {
    const full = path.join(root, name);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, name);
    await utimes(full, now - i * 10, now - i * 10);
  }
}

const engines = [
  ['ripgrep', findRipgrep()],
  ['javascript', undefined],
] as const;

describe.each(engines)('glob (%s)', (engine, ripgrep) => {
  const runTool = (tool: AnyTool, policy: ResolvedPolicy, input: unknown) =>
    runToolWith(tool, policy, input, { ripgrep });

  it('returns matches relative to the search root, newest first', async () => {
    await using dir = await tempDir();
    await files(dir.path, ['src/new.ts', 'src/deep/mid.ts', 'old.ts', 'src/skip.js']);
    const result = await runTool(globTool, testPolicy(dir.path), { pattern: '**/*.ts' });
    expect(result).toMatchObject({ isError: false, output: 'src/new.ts\nsrc/deep/mid.ts\nold.ts' });
    expect(result.display).toEqual({ type: 'matches', files: 3, matches: 3, truncated: false });
    const under = await runTool(globTool, testPolicy(dir.path), { pattern: '**/*.ts', path: 'src' });
    expect(under.output).toBe('new.ts\ndeep/mid.ts');
    const top = await runTool(globTool, testPolicy(dir.path), { pattern: '*.ts' });
    expect(top.output).toBe('old.ts');
  });

  it("walks only under a pattern's fixed prefix and accepts absolute patterns", async () => {
    await using dir = await tempDir();
    await files(dir.path, ['src/a/x.tsx', 'src/b.ts', 'other/c.ts']);
    const policy = testPolicy(dir.path);
    expect((await runTool(globTool, policy, { pattern: 'src/**/*.{ts,tsx}' })).output).toBe(
      'src/a/x.tsx\nsrc/b.ts',
    );
    const absolute = await runTool(globTool, policy, { pattern: path.join(dir.path, 'src', '**', '*.ts') });
    expect(absolute.output).toBe('b.ts');
  });

  it('respects nested .gitignore files, always skips .git, and include_ignored lifts the first', async () => {
    await using dir = await tempDir();
    await files(dir.path, [
      'keep.txt',
      'app.log',
      'build/out.txt',
      'pkg/local.txt',
      'pkg/keep.log',
      '.git/config.txt',
    ]);
    await writeFile(path.join(dir.path, '.gitignore'), '*.log\nbuild/\n');
    await writeFile(path.join(dir.path, 'pkg', '.gitignore'), 'local.txt\n!keep.log\n');
    const policy = testPolicy(dir.path);
    const plain = await runTool(globTool, policy, { pattern: '**/*.{txt,log}' });
    expect(plain.output.split('\n').sort()).toEqual(['keep.txt', 'pkg/keep.log']);
    const all = await runTool(globTool, policy, { pattern: '**/*.{txt,log}', include_ignored: true });
    expect(all.output.split('\n').sort()).toEqual([
      'app.log',
      'build/out.txt',
      'keep.txt',
      'pkg/keep.log',
      'pkg/local.txt',
    ]);
  });

  it('applies .gitignore files above the search root, up to the workspace', async () => {
    await using dir = await tempDir();
    await files(dir.path, ['sub/a.txt', 'sub/b.gen.txt']);
    await writeFile(path.join(dir.path, '.gitignore'), '*.gen.txt\n');
    const result = await runTool(globTool, testPolicy(dir.path), { pattern: '*.txt', path: 'sub' });
    expect(result.output).toBe('a.txt');
  });

  it('never returns denied paths, directly or through a symlink', async () => {
    await using dir = await tempDir();
    await files(dir.path, ['.env', 'app/.env', 'app/main.ts', 'secrets/key.ts', 'ok.ts']);
    await symlink(path.join(dir.path, 'secrets', 'key.ts'), path.join(dir.path, 'app', 'link.ts'));
    await symlink(path.join(dir.path, 'ok.ts'), path.join(dir.path, 'app', 'ok-link.ts'));
    const policy = testPolicy(dir.path, {
      read: { allow: ['/'], deny: ['**/.env', path.join(dir.path, 'secrets')] },
    });
    const result = await runTool(globTool, policy, { pattern: '**/*' });
    // ripgrep lists regular files only: links to files are left out, like links to directories.
    const links = engine === 'javascript' ? ['app/ok-link.ts'] : [];
    expect(result.output.split('\n').sort()).toEqual(['app/main.ts', ...links, 'ok.ts']);
    const direct = await runTool(globTool, policy, { pattern: '**/*', path: 'secrets' });
    expect(direct).toMatchObject({ code: 'denied' });
  });

  it('past 500 matches shows the first 500 in path order and says how many there were', async () => {
    await using dir = await tempDir();
    await mkdir(path.join(dir.path, 'many'));
    await Promise.all(
      Array.from({ length: 520 }, (_, i) =>
        writeFile(path.join(dir.path, 'many', `f${String(i).padStart(3, '0')}.txt`), ''),
      ),
    );
    const result = await runTool(globTool, testPolicy(dir.path), { pattern: 'many/*.txt' });
    const lines = result.output.split('\n');
    expect(lines).toHaveLength(501);
    expect(lines.at(-1)).toBe(
      '[showing the first 500 of 520 matches in path order; narrow the pattern or path]',
    );
    expect(lines.slice(0, 2)).toEqual(['many/f000.txt', 'many/f001.txt']);
    expect(result.display).toEqual({ type: 'matches', files: 520, matches: 520, truncated: true });
  });

  it('past 1,000 matches, in any order found, still shows the first 500 in walk order', async () => {
    await using dir = await tempDir();
    // Names on either side of "/" in code-unit order: "d" (a directory), "d-1", "d.x".
    const names: string[] = [];
    for (const top of ['d', 'd-1', 'd.x', 'e']) {
      for (let i = 0; i < 150; i++) names.push(`${top}/${i % 7}/f${i}.txt`, `${top}/${i % 7}.f${i}.txt`);
    }
    await Promise.all(
      names.map((name) => mkdir(path.dirname(path.join(dir.path, name)), { recursive: true })),
    );
    await Promise.all(names.map((name) => writeFile(path.join(dir.path, name), '')));
    const result = await runTool(globTool, testPolicy(dir.path), { pattern: '**/*.txt' });
    const lines = result.output.split('\n');
    const key = (name: string): string => name.replaceAll('/', '\0');
    const expected = [...names].sort((a, b) => (key(a) < key(b) ? -1 : 1)).slice(0, 500);
    expect(lines.slice(0, 500)).toEqual(expected);
    expect(lines[500]).toBe(
      `[showing the first 500 of ${names.length} matches in path order; narrow the pattern or path]`,
    );
  });

  it('a "**/*NAME" pattern, which ripgrep answers by file name alone, matches what picomatch does', async () => {
    await using dir = await tempDir();
    await files(dir.path, [
      'a.ts',
      '.ts',
      '.hidden.ts',
      'dir.ts/inner',
      'X.TS',
      'a.ts.bak',
      'sub/.d/deep.ts',
      'sub/a.d.ts',
      'sub/a-b_c.ts',
      'sub/secret.ts',
    ]);
    const policy = testPolicy(dir.path, { read: { allow: ['/'], deny: ['**/secret.ts'] } });
    const sorted = async (pattern: string) =>
      (await runTool(globTool, policy, { pattern })).output.split('\n').sort();
    expect(await sorted('**/*.ts')).toEqual([
      '.hidden.ts',
      '.ts',
      'a.ts',
      'sub/.d/deep.ts',
      'sub/a-b_c.ts',
      'sub/a.d.ts',
    ]);
    expect(await sorted('sub/**/*.d.ts')).toEqual(['sub/a.d.ts']);
    expect(await sorted('**/*')).toHaveLength(9);
  });

  it('explains an empty result, including what gitignore hid', async () => {
    await using dir = await tempDir();
    await files(dir.path, ['dist/x.js', 'a/b.ts']);
    await writeFile(path.join(dir.path, '.gitignore'), 'dist/\n');
    const policy = testPolicy(dir.path);
    const hidden = await runTool(globTool, policy, { pattern: 'dist/**/*.js' });
    // Named explicitly, an ignored directory is searched.
    expect(hidden.output).toBe('dist/x.js');
    const none = await runTool(globTool, policy, { pattern: '*.js' });
    expect(none).toMatchObject({
      isError: false,
      output:
        'no files match "*.js" in .; without a "/" a pattern matches only files directly in ., try "**/*.js"; 1 gitignored entry was skipped (pass include_ignored: true to search them)',
    });
    expect(none.display).toEqual({ type: 'matches', files: 0, matches: 0, truncated: false });
  });

  it('fails clearly on a missing or non-directory path', async () => {
    await using dir = await tempDir();
    await files(dir.path, ['f.txt']);
    const policy = testPolicy(dir.path);
    expect(await runTool(globTool, policy, { pattern: '*', path: 'nope' })).toMatchObject({
      code: 'not_found',
      output: 'nope does not exist; use list_dir to see what is there',
    });
    expect(await runTool(globTool, policy, { pattern: '*', path: 'f.txt' })).toMatchObject({
      code: 'invalid_input',
      output: 'f.txt is a file, not a directory; pass its directory as path',
    });
  });
});
