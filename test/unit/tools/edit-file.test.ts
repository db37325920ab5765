import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editFileTool } from '../../../executor/tools/edit-file.js';
import { testPolicy } from '../../support/policies.js';
import { runTool } from '../../support/run-tool.js';
import { tempDir } from '../../support/temp-dir.js';

describe('edit_file', () => {
  it('replaces a unique string and returns a summary with a unified diff', async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'a.ts');
    await writeFile(file, 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    const result = await runTool(editFileTool, testPolicy(dir.path), {
      path: 'a.ts',
      old_string: 'const b = 2;',
      new_string: 'const b = 20;',
    });
    expect(result).toMatchObject({ isError: false });
    expect(result.output).toBe(
      [
        'edited a.ts (+1 -1)',
        '',
        '--- a/a.ts',
        '+++ b/a.ts',
        '@@ -1,3 +1,3 @@',
        ' const a = 1;',
        '-const b = 2;',
        '+const b = 20;',
        ' const c = 3;',
      ].join('\n'),
    );
    expect(result.display).toEqual({
      type: 'diff',
      path: 'a.ts',
      diff: result.output.slice(result.output.indexOf('---')),
      additions: 1,
      deletions: 1,
      created: false,
    });
    expect(await readFile(file, 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst c = 3;\n');
  });

  it('shows an absolute path without a/ b/ prefixes in the diff headers', async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'x.txt');
    await writeFile(file, 'x\n');
    const result = await runTool(editFileTool, testPolicy(dir.path), {
      path: file,
      old_string: 'x',
      new_string: 'y',
    });
    expect(result.output).toContain(`--- ${file}\n+++ ${file}\n`);
  });

  it('refuses an ambiguous old_string with its count and lines, and replace_all replaces each one', async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'dup.txt');
    await writeFile(file, 'foo\nbar\nfoo\nbaz\nfoo\n');
    const policy = testPolicy(dir.path);
    const ambiguous = await runTool(editFileTool, policy, {
      path: 'dup.txt',
      old_string: 'foo',
      new_string: 'qux',
    });
    expect(ambiguous).toMatchObject({
      isError: true,
      code: 'conflict',
      output:
        'old_string occurs 3 times in dup.txt (lines 1, 3, 5); include more surrounding lines to pick one, or pass replace_all: true to replace every occurrence',
    });
    expect(await readFile(file, 'utf8')).toBe('foo\nbar\nfoo\nbaz\nfoo\n');

    const all = await runTool(editFileTool, policy, {
      path: 'dup.txt',
      old_string: 'foo',
      new_string: 'qux',
      replace_all: true,
    });
    expect(all.output.split('\n')[0]).toBe('replaced 3 occurrences in dup.txt (+3 -3)');
    expect(await readFile(file, 'utf8')).toBe('qux\nbar\nqux\nbaz\nqux\n');
  });

  it('keeps $ sequences in new_string literal', async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'd.txt');
    await writeFile(file, 'price\n');
    await runTool(editFileTool, testPolicy(dir.path), {
      path: 'd.txt',
      old_string: 'price',
      new_string: "$& $' $1",
    });
    expect(await readFile(file, 'utf8')).toBe("$& $' $1\n");
  });

  it('points at a whitespace-insensitive near match when old_string is not found', async () => {
    await using dir = await tempDir();
    await writeFile(path.join(dir.path, 'f.ts'), 'function f() {\n\tif (x) {\n\t\treturn 1;\n\t}\n}\n');
    const result = await runTool(editFileTool, testPolicy(dir.path), {
      path: 'f.ts',
      old_string: '  if (x) {\n    return 1;',
      new_string: '  if (x) {\n    return 2;',
    });
    expect(result).toMatchObject({ isError: true, code: 'not_found' });
    expect(result.output).toBe(
      'old_string was not found in f.ts exactly, but lines 2-3 match when whitespace is ignored. The file has:\n' +
        '\tif (x) {\n\t\treturn 1;\n' +
        'Copy the text exactly (indentation and spacing included) and try again',
    );
  });

  it('says to re-read the file when nothing is close, and spots read_file line prefixes', async () => {
    await using dir = await tempDir();
    await writeFile(path.join(dir.path, 'g.txt'), 'alpha\nbeta\n');
    const policy = testPolicy(dir.path);
    const missing = await runTool(editFileTool, policy, {
      path: 'g.txt',
      old_string: 'gamma',
      new_string: 'x',
    });
    expect(missing).toMatchObject({
      code: 'not_found',
      output:
        'old_string was not found in g.txt. The file may have changed since you read it: read it again with read_file and copy old_string exactly',
    });
    const numbered = await runTool(editFileTool, policy, {
      path: 'g.txt',
      old_string: '1\talpha\n2\tbeta',
      new_string: 'x',
    });
    expect(numbered).toMatchObject({
      code: 'not_found',
      output: expect.stringContaining('line-number prefixes'),
    });
  });

  it('rejects identical strings, binary files and directories as invalid input', async () => {
    await using dir = await tempDir();
    await writeFile(path.join(dir.path, 'b.bin'), Buffer.from([1, 2, 0, 3]));
    await mkdir(path.join(dir.path, 'sub'));
    const policy = testPolicy(dir.path);
    const same = await runTool(editFileTool, policy, { path: 'b.bin', old_string: 'a', new_string: 'a' });
    expect(same).toMatchObject({ code: 'invalid_input', output: expect.stringContaining('identical') });
    const binary = await runTool(editFileTool, policy, { path: 'b.bin', old_string: 'a', new_string: 'b' });
    expect(binary).toMatchObject({
      code: 'invalid_input',
      output: 'b.bin is a binary file; edit_file only edits text',
    });
    const directory = await runTool(editFileTool, policy, { path: 'sub', old_string: 'a', new_string: 'b' });
    expect(directory).toMatchObject({ code: 'invalid_input', output: 'sub is a directory, not a file' });
  });

  it('creates a missing file, with parents, from an empty old_string', async () => {
    await using dir = await tempDir();
    const result = await runTool(editFileTool, testPolicy(dir.path), {
      path: 'new/dir/n.txt',
      old_string: '',
      new_string: 'hello\nworld\n',
    });
    expect(result.output.split('\n')[0]).toBe('created new/dir/n.txt (12 bytes, +2 -0)');
    expect(result.display).toMatchObject({ type: 'diff', created: true, additions: 2, deletions: 0 });
    expect(result.output).toContain(
      '\n--- a/new/dir/n.txt\n+++ b/new/dir/n.txt\n@@ -0,0 +1,2 @@\n+hello\n+world',
    );
    expect(await readFile(path.join(dir.path, 'new/dir/n.txt'), 'utf8')).toBe('hello\nworld\n');
  });

  it('fills an existing empty file but refuses an empty old_string on a non-empty one', async () => {
    await using dir = await tempDir();
    await writeFile(path.join(dir.path, 'empty.txt'), '');
    await writeFile(path.join(dir.path, 'full.txt'), 'content\n');
    const policy = testPolicy(dir.path);
    const filled = await runTool(editFileTool, policy, {
      path: 'empty.txt',
      old_string: '',
      new_string: 'x\n',
    });
    expect(filled).toMatchObject({ isError: false, display: { created: false } });
    expect(await readFile(path.join(dir.path, 'empty.txt'), 'utf8')).toBe('x\n');
    const refused = await runTool(editFileTool, policy, {
      path: 'full.txt',
      old_string: '',
      new_string: 'x',
    });
    expect(refused).toMatchObject({ code: 'invalid_input', output: expect.stringContaining('is not empty') });
    expect(await readFile(path.join(dir.path, 'full.txt'), 'utf8')).toBe('content\n');
  });

  it('fails with not_found on a missing file when old_string is given', async () => {
    await using dir = await tempDir();
    const result = await runTool(editFileTool, testPolicy(dir.path), {
      path: 'nope.txt',
      old_string: 'a',
      new_string: 'b',
    });
    expect(result).toMatchObject({
      code: 'not_found',
      output: 'nope.txt does not exist. To create it, pass an empty old_string (or use write_file)',
    });
  });

  it("keeps CRLF line endings while matching the model's \\n strings", async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'win.txt');
    await writeFile(file, 'one\r\ntwo\r\nthree\r\n');
    const result = await runTool(editFileTool, testPolicy(dir.path), {
      path: 'win.txt',
      old_string: 'one\ntwo',
      new_string: 'one\n2\nand a half',
    });
    expect(result).toMatchObject({ isError: false });
    expect(result.output).not.toContain('\r');
    expect(await readFile(file, 'utf8')).toBe('one\r\n2\r\nand a half\r\nthree\r\n');
  });

  it('keeps the file mode', async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'run.sh');
    await writeFile(file, 'echo 1\n');
    await chmod(file, 0o755);
    await runTool(editFileTool, testPolicy(dir.path), { path: 'run.sh', old_string: '1', new_string: '2' });
    expect((await stat(file)).mode & 0o777).toBe(0o755);
    expect(await readFile(file, 'utf8')).toBe('echo 2\n');
  });

  it('denies edits outside the writable paths and in protected ones, leaving files untouched', async () => {
    await using dir = await tempDir();
    await using outside = await tempDir();
    const target = path.join(outside.path, 'x.txt');
    await writeFile(target, 'a\n');
    await mkdir(path.join(dir.path, '.git'));
    await writeFile(path.join(dir.path, '.git', 'config'), 'a\n');
    const policy = testPolicy(dir.path, { protected: [path.join(dir.path, '.git')] });
    const out = await runTool(editFileTool, policy, { path: target, old_string: 'a', new_string: 'b' });
    expect(out).toMatchObject({
      code: 'denied',
      output: expect.stringContaining('outside the writable paths'),
    });
    expect(await readFile(target, 'utf8')).toBe('a\n');
    const git = await runTool(editFileTool, policy, {
      path: '.git/config',
      old_string: 'a',
      new_string: 'b',
    });
    expect(git).toMatchObject({ code: 'denied', output: expect.stringContaining('is protected') });
    expect(await readFile(path.join(dir.path, '.git', 'config'), 'utf8')).toBe('a\n');
  });
});
