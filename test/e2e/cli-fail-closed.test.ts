import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

/** A PATH without bubblewrap on it: what a machine that lacks the package looks like to Skate. */
async function pathWithoutBwrap(dir: string): Promise<NodeJS.ProcessEnv> {
  const bin = path.join(dir, 'empty-bin');
  await mkdir(bin);
  return { ...process.env, PATH: bin };
}

describe('where the kernel sandbox cannot be built', () => {
  it('refuses a restricted policy, says why and how to fix it, and starts nothing', async () => {
    await using dir = await tempDir();
    const result = await runCli(
      ['tool', 'write_file', '--input', '{"path":"x.txt","content":"x"}', '--workspace', dir.path],
      {
        env: await pathWithoutBwrap(dir.path),
      },
    );
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      'refusing to start an executor under policy "execute" without its kernel sandbox',
    );
    expect(result.stderr).toContain('bubblewrap (bwrap) is not installed');
    expect(result.stderr).toContain('apt-get install bubblewrap');
    expect(result.stderr).toContain('--sandbox best-effort');
    await expect(stat(path.join(dir.path, 'x.txt'))).rejects.toThrow(/ENOENT/);
  });

  it("runs with only the tools' checks when the user explicitly accepts best effort, and says so", async () => {
    await using dir = await tempDir();
    const env = await pathWithoutBwrap(dir.path);
    const show = await runCli(['policy', 'show', 'execute', '--json', '--workspace', dir.path], { env });
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout).enforcement.level).toBe('best-effort');
    const written = await runCli(
      [
        'tool',
        'write_file',
        '--sandbox',
        'best-effort',
        '--input',
        '{"path":"x.txt","content":"x"}',
        '--workspace',
        dir.path,
      ],
      { env },
    );
    expect(written.code, written.stderr).toBe(0);
    expect((await stat(path.join(dir.path, 'x.txt'))).size).toBe(1);
    // The tools' own check still denies writes outside the workspace.
    const outside = path.join(path.dirname(dir.path), `${path.basename(dir.path)}-outside.txt`);
    const denied = await runCli(
      [
        'tool',
        'write_file',
        '--sandbox',
        'best-effort',
        '--input',
        JSON.stringify({ path: outside, content: 'x' }),
        '--workspace',
        dir.path,
      ],
      { env },
    );
    expect(denied.code).toBe(1);
    expect(JSON.parse(denied.stdout)).toMatchObject({ code: 'denied' });
    await expect(stat(outside)).rejects.toThrow(/ENOENT/);
  });
});
