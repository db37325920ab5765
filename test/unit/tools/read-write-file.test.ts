import { execFileSync } from 'node:child_process';
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileTool } from '../../../executor/tools/read-file.js';
import { writeFileTool } from '../../../executor/tools/write-file.js';
import { testPolicy } from '../../support/policies.js';
import { runTool } from '../../support/run-tool.js';
import { tempDir } from '../../support/temp-dir.js';

describe('read_file', () => {
  it('returns numbered lines and a file display', async () => {
    await using dir = await tempDir();
    await writeFile(path.join(dir.path, 'a.txt'), 'one\ntwo\nthree\n');
    const result = await runTool(readFileTool, testPolicy(dir.path), { path: 'a.txt' });
    expect(result).toMatchObject({ isError: false, output: '1\tone\n2\ttwo\n3\tthree' });
    expect(result.display).toEqual({
      type: 'file',
      path: 'a.txt',
      startLine: 1,
      endLine: 3,
      totalLines: 3,
      truncated: false,
    });
  });

  it('reads a line range and says how to continue', async () => {
    await using dir = await tempDir();
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n');
    await writeFile(path.join(dir.path, 'long.txt'), lines);
    const result = await runTool(readFileTool, testPolicy(dir.path), {
      path: 'long.txt',
      offset: 10,
      limit: 3,
    });
    expect(result.output).toBe(
      '10\tline 10\n11\tline 11\n12\tline 12\n[showing lines 10-12 of 50; read on with offset 13]',
    );
  });

  it('reports binary files instead of dumping them', async () => {
    await using dir = await tempDir();
    await writeFile(path.join(dir.path, 'b.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    const result = await runTool(readFileTool, testPolicy(dir.path), { path: 'b.bin' });
    expect(result).toMatchObject({ isError: false, output: 'b.bin is a binary file (8 bytes); not shown' });
  });

  it('fails clearly on a missing file, a directory and an offset past the end', async () => {
    await using dir = await tempDir();
    await writeFile(path.join(dir.path, 'x.txt'), 'x\n');
    const policy = testPolicy(dir.path);
    expect(await runTool(readFileTool, policy, { path: 'nope.txt' })).toMatchObject({ code: 'not_found' });
    expect(await runTool(readFileTool, policy, { path: '.' })).toMatchObject({ code: 'invalid_input' });
    const past = await runTool(readFileTool, policy, { path: 'x.txt', offset: 5 });
    expect(past).toMatchObject({ code: 'invalid_input', output: expect.stringContaining('has 1 lines') });
  });

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    await using dir = await tempDir();
    execFileSync('mkfifo', [path.join(dir.path, 'pipe')]);
    const result = await runTool(readFileTool, testPolicy(dir.path), { path: 'pipe' });
    expect(result).toMatchObject({ code: 'invalid_input', output: 'pipe is not a regular file' });
  });

  it('reads a file past the blocking-read size on the thread pool, the same way', async () => {
    await using dir = await tempDir();
    // 1.5 MB of numbered lines: over the 1 MiB read in one blocking call.
    const lines = Array.from({ length: 60_000 }, (_, i) => `line ${i + 1} ${'x'.repeat(16)}`);
    await writeFile(path.join(dir.path, 'big.txt'), `${lines.join('\n')}\n`);
    const result = await runTool(readFileTool, testPolicy(dir.path), {
      path: 'big.txt',
      offset: 59_999,
    });
    expect(result.output).toBe(`59999\t${lines[59_998]}\n60000\t${lines[59_999]}`);
    expect(result.display).toMatchObject({ startLine: 59_999, endLine: 60_000, totalLines: 60_000 });
  });

  it('refuses kernel interfaces and denied paths with the policy named', async () => {
    await using dir = await tempDir();
    await mkdir(path.join(dir.path, 'secrets'));
    await writeFile(path.join(dir.path, 'secrets', 'key'), 'k');
    const policy = testPolicy(dir.path, { read: { allow: ['/'], deny: [path.join(dir.path, 'secrets')] } });
    const proc = await runTool(readFileTool, policy, { path: '/proc/self/environ' });
    expect(proc).toMatchObject({ code: 'denied', output: expect.stringContaining('kernel interface') });
    const denied = await runTool(readFileTool, policy, { path: 'secrets/key' });
    expect(denied).toMatchObject({
      code: 'denied',
      output: expect.stringContaining('read denied by policy "test"'),
    });
    // A symlink does not launder a denied target.
    await symlink(path.join(dir.path, 'secrets', 'key'), path.join(dir.path, 'link'));
    expect(await runTool(readFileTool, policy, { path: 'link' })).toMatchObject({ code: 'denied' });
  });
});

describe('write_file', () => {
  it('creates a file with parents and reports a diff', async () => {
    await using dir = await tempDir();
    const result = await runTool(writeFileTool, testPolicy(dir.path), {
      path: 'src/new.ts',
      content: 'a\nb\n',
    });
    expect(result).toMatchObject({ isError: false, output: 'created src/new.ts (4 bytes, 3 lines)' });
    expect(result.display).toMatchObject({ type: 'diff', created: true, additions: 2, deletions: 0 });
    expect(await readFile(path.join(dir.path, 'src/new.ts'), 'utf8')).toBe('a\nb\n');
  });

  it('replaces content, keeps the mode and counts changes', async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'run.sh');
    await writeFile(file, 'echo 1\necho 2\n', { mode: 0o755 });
    const result = await runTool(writeFileTool, testPolicy(dir.path), {
      path: 'run.sh',
      content: 'echo 1\necho 3\n',
    });
    expect(result.output).toBe('wrote run.sh (14 bytes, 3 lines; +1 -1)');
    expect((await stat(file)).mode & 0o777).toBe(0o755);
  });

  it('denies writes outside the writable paths, naming them, and leaves the host untouched', async () => {
    await using dir = await tempDir();
    await using outside = await tempDir();
    const target = path.join(outside.path, 'x.txt');
    const result = await runTool(writeFileTool, testPolicy(dir.path), { path: target, content: 'no' });
    expect(result).toMatchObject({ isError: true, code: 'denied' });
    expect(result.output).toContain(`is outside the writable paths [${dir.path}]`);
    await expect(stat(target)).rejects.toThrow(/ENOENT/);
  });

  it('denies writes through a symlink that points outside and into protected paths', async () => {
    await using dir = await tempDir();
    await using outside = await tempDir();
    await symlink(outside.path, path.join(dir.path, 'escape'));
    await mkdir(path.join(dir.path, '.git'));
    const policy = testPolicy(dir.path, { protected: [path.join(dir.path, '.git')] });
    const viaLink = await runTool(writeFileTool, policy, { path: 'escape/x.txt', content: 'no' });
    expect(viaLink).toMatchObject({ code: 'denied' });
    await expect(stat(path.join(outside.path, 'x.txt'))).rejects.toThrow(/ENOENT/);
    const git = await runTool(writeFileTool, policy, { path: '.git/hooks/pre-commit', content: 'no' });
    expect(git).toMatchObject({ code: 'denied', output: expect.stringContaining('is protected') });
    await expect(stat(path.join(dir.path, '.git/hooks'))).rejects.toThrow(/ENOENT/);
  });

  it('rejects input that fails the schema with the field named', async () => {
    await using dir = await tempDir();
    const result = await runTool(writeFileTool, testPolicy(dir.path), { path: 'a.txt' });
    expect(result).toMatchObject({ code: 'invalid_input', output: expect.stringContaining('content') });
  });
});
