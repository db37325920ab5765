import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolDefinition, ToolResult } from '../../shared/tool.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

describe('skate tools / skate tool', () => {
  it('lists tool definitions as JSON', async () => {
    await using dir = await tempDir();
    const result = await runCli(['tools', '--json', '--workspace', dir.path]);
    expect(result.code).toBe(0);
    const tools = ToolDefinition.array().parse(JSON.parse(result.stdout));
    expect(tools.map((tool) => tool.name)).toContain('read_file');
  });

  it('runs a tool call and prints the result as JSON, exit 0', async () => {
    await using dir = await tempDir();
    const result = await runCli([
      'tool',
      'write_file',
      '--input',
      JSON.stringify({ path: 'hello.txt', content: 'hello\n' }),
      '--workspace',
      dir.path,
    ]);
    expect(result.code).toBe(0);
    expect(ToolResult.parse(JSON.parse(result.stdout))).toMatchObject({ isError: false });
    expect(await readFile(path.join(dir.path, 'hello.txt'), 'utf8')).toBe('hello\n');
  });

  it('takes the input from stdin with --input -', async () => {
    await using dir = await tempDir();
    await writeFile(path.join(dir.path, 'a.txt'), 'from stdin\n');
    const result = await runCli(['tool', 'read_file', '--input', '-'], {
      cwd: dir.path,
      stdin: JSON.stringify({ path: 'a.txt' }),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).output).toBe('1\tfrom stdin');
  });

  it('exits 1 with the denial when the policy refuses, and writes nothing', async () => {
    await using dir = await tempDir();
    await using outside = await tempDir();
    const target = path.join(outside.path, 'x.txt');
    const result = await runCli(
      ['tool', 'write_file', '--input', JSON.stringify({ path: target, content: 'x' })],
      {
        cwd: dir.path,
      },
    );
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ isError: true, code: 'denied' });
    await expect(stat(target)).rejects.toThrow(/ENOENT/);
  });

  it('exits 2 on usage errors with a message that says what to fix', async () => {
    await using dir = await tempDir();
    const cases: [string[], string][] = [
      [['tool', 'read_file'], 'needs --input'],
      [['tool', 'read_file', '--input', '{oops'], '--input is not valid JSON'],
      [['tool'], 'needs a tool name'],
      [['tools', '--bogus'], 'unknown option --bogus'],
      [['tools', '--policy', 'nonexistent'], 'no policy named "nonexistent"'],
      [['tools', '--workspace', path.join(dir.path, 'missing')], 'does not exist'],
      [['frobnicate'], 'unknown command: frobnicate'],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { cwd: dir.path });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });

  it('prints neither a huge input nor a huge argument back whole', async () => {
    await using dir = await tempDir();
    const read = await runCli(['tool', 'read_file', '--input', '-', '--workspace', dir.path], {
      stdin: JSON.stringify({ path: 'a'.repeat(5 * 1024 * 1024) }),
    });
    expect(read.code).toBe(1);
    expect(read.stdout.length).toBeLessThan(4096);
    const result = JSON.parse(read.stdout) as { output: string; code: string };
    expect(result.output).toMatch(
      /^read_file failed: ENAMETOOLONG: name too long, \w+ '.*…\[\d+ characters elided\]…/,
    );
    // An argument can be 128 KiB (the kernel's limit per argument): the usage error quotes a piece.
    const huge = 'b'.repeat(120_000);
    for (const args of [
      [huge],
      ['tool', 'read_file', '--input', '{}', `--${huge}`],
      ['-p', 'x', '--output-format', huge],
    ]) {
      const usage = await runCli(args, { cwd: dir.path });
      expect(usage.code).toBe(2);
      expect(usage.stderr.length).toBeLessThan(4200);
      expect(usage.stderr).toMatch(/^skate: .*…\[\d+ characters elided\]…/);
    }
  });

  it('reports an invalid policy file with its field and a suggestion', async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'bad.json');
    const policy = JSON.parse(
      await readFile(path.join(process.cwd(), 'sandbox-policies/execute.json'), 'utf8'),
    );
    policy.network = { mode: 'sometimes' };
    await writeFile(file, JSON.stringify(policy));
    const result = await runCli(['tools', '--policy', file, '--workspace', dir.path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: network.mode`);
    expect(result.stderr).toContain('suggestion: use one of: "off", "on"');
  });
});
