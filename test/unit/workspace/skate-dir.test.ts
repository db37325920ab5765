import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensurePlanFile } from '../../../harness/planning/plan-file.js';
import { createSessionWriter } from '../../../harness/session/session-writer.js';
import { ensureSkateDir, SKATE_GITIGNORE } from '../../../harness/skate-dir.js';
import { tempDir } from '../../support/temp-dir.js';

function gitStatus(dir: string): string {
  return execFileSync('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=all'], {
    encoding: 'utf8',
  });
}

async function repo(dir: string): Promise<void> {
  execFileSync('git', ['init', '-q', dir]);
  await writeFile(path.join(dir, 'main.ts'), 'export {};\n');
}

describe('.skate/.gitignore', () => {
  it('keeps session logs out of git: a real git status lists only the user’s own file', async () => {
    await using ws = await tempDir();
    await repo(ws.path);
    const writer = await createSessionWriter({ workspace: ws.path, model: 'm', policy: 'execute' });
    await writer.close();
    expect(await readFile(path.join(ws.path, '.skate', '.gitignore'), 'utf8')).toBe(SKATE_GITIGNORE);
    expect(gitStatus(ws.path)).toBe('?? main.ts\n');
    execFileSync('git', ['-C', ws.path, 'add', '-A']);
    expect(
      execFileSync('git', ['-C', ws.path, 'diff', '--cached', '--name-only'], { encoding: 'utf8' }),
    ).toBe('main.ts\n');
  });

  it('lets a workspace settings.json be committed while the logs and the plan stay out', async () => {
    await using ws = await tempDir();
    await repo(ws.path);
    await ensurePlanFile(ws.path);
    const writer = await createSessionWriter({ workspace: ws.path, model: 'm', policy: 'execute' });
    await writer.close();
    await writeFile(path.join(ws.path, '.skate', 'settings.json'), '{"model":"claude-x"}\n');
    expect(gitStatus(ws.path)).toBe('?? .skate/settings.json\n?? main.ts\n');
    execFileSync('git', ['-C', ws.path, 'add', '-A']);
    expect(
      execFileSync('git', ['-C', ws.path, 'diff', '--cached', '--name-only'], { encoding: 'utf8' }),
    ).toBe('.skate/settings.json\nmain.ts\n');
  });

  it('is written when the plan file makes the folder too', async () => {
    await using ws = await tempDir();
    await repo(ws.path);
    await ensurePlanFile(ws.path);
    expect(gitStatus(ws.path)).toBe('?? main.ts\n');
  });

  it('leaves a .skate the user already has as it is', async () => {
    await using ws = await tempDir();
    await repo(ws.path);
    await mkdir(path.join(ws.path, '.skate'));
    await writeFile(path.join(ws.path, '.skate', 'notes.md'), 'mine\n');
    await ensureSkateDir(ws.path);
    expect(gitStatus(ws.path)).toBe('?? .skate/notes.md\n?? main.ts\n');
  });

  it('refuses a .skate that is a symbolic link', async () => {
    await using ws = await tempDir();
    await using elsewhere = await tempDir();
    await symlink(elsewhere.path, path.join(ws.path, '.skate'));
    await expect(ensureSkateDir(ws.path)).rejects.toThrow(/not a directory/);
    await rm(path.join(ws.path, '.skate'));
  });
});
