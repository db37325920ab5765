import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../harness/policy/load-policy.js';
import {
  type ReadWorkspaceFileOptions,
  readWorkspaceFile,
  type WorkspaceFile,
} from '../../../harness/workspace-files/read-workspace-file.js';
import type { ResolvedPolicy } from '../../../shared/policy.js';
import { tempDir } from '../../support/temp-dir.js';

async function executePolicy(workspace: string, home: string): Promise<ResolvedPolicy> {
  const loaded = await loadPolicy('execute', { workspace, home });
  if (!loaded.ok) throw new Error(loaded.problem.message);
  return loaded.policy;
}

function text(read: WorkspaceFile): string | undefined {
  return read.status === 'read' ? read.data.toString('utf8') : undefined;
}

describe('readWorkspaceFile', () => {
  it('reads a regular file, and follows a link to one the policy allows inside `within`', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    const options: ReadWorkspaceFileOptions = {
      policy: await executePolicy(ws.path, home.path),
      within: ws.path,
      maxBytes: 1024,
      overflow: 'cut',
    };
    await writeFile(path.join(ws.path, 'AGENTS.md'), 'agents\n');
    await symlink('AGENTS.md', path.join(ws.path, 'CLAUDE.md'));
    expect(await readWorkspaceFile(path.join(ws.path, 'AGENTS.md'), options)).toMatchObject({
      status: 'read',
      real: path.join(ws.path, 'AGENTS.md'),
      truncated: false,
    });
    const linked = await readWorkspaceFile(path.join(ws.path, 'CLAUDE.md'), options);
    expect(text(linked)).toBe('agents\n');
    expect(linked).toMatchObject({ real: path.join(ws.path, 'AGENTS.md') });
    expect(await readWorkspaceFile(path.join(ws.path, 'none.md'), options)).toEqual({ status: 'missing' });
    await symlink('nowhere.md', path.join(ws.path, 'dangling.md'));
    expect(await readWorkspaceFile(path.join(ws.path, 'dangling.md'), options)).toEqual({
      status: 'missing',
    });
  });

  it('refuses a link to a denied file, to one outside `within`, and to the kernel interfaces', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    await using elsewhere = await tempDir();
    const policy = await executePolicy(ws.path, home.path);
    const options: ReadWorkspaceFileOptions = { policy, within: ws.path, maxBytes: 1024, overflow: 'cut' };
    await writeFile(path.join(ws.path, '.env'), 'TOKEN=1\n');
    await mkdir(path.join(home.path, '.ssh'));
    await writeFile(path.join(home.path, '.ssh', 'id_rsa'), 'KEY\n');
    await writeFile(path.join(elsewhere.path, 'notes.md'), 'elsewhere\n');
    const cases: [string, string, RegExp][] = [
      ['.env', 'env.md', /denies the agent \(.*\*\*\/\.env\)/],
      [path.join(home.path, '.ssh', 'id_rsa'), 'key.md', /outside/],
      [path.join(elsewhere.path, 'notes.md'), 'outside.md', /outside/],
      ['/proc/self/environ', 'environ.md', /kernel interface/],
    ];
    for (const [target, name, message] of cases) {
      await symlink(target, path.join(ws.path, name));
      const read = await readWorkspaceFile(path.join(ws.path, name), options);
      expect(read, name).toMatchObject({ status: 'refused', message: expect.stringMatching(message) });
    }
    // Without `within` (a file the user named), the policy alone decides: the key stays unread.
    const key = await readWorkspaceFile(path.join(ws.path, 'key.md'), { ...options, within: undefined });
    expect(key).toMatchObject({ status: 'refused', reason: 'denied' });
    expect(
      text(await readWorkspaceFile(path.join(ws.path, 'outside.md'), { ...options, within: undefined })),
    ).toBe('elsewhere\n');
    // The denied file itself, named directly, is refused the same way.
    expect(await readWorkspaceFile(path.join(ws.path, '.env'), options)).toMatchObject({ reason: 'denied' });
  });

  it('refuses a FIFO, a directory and a device at once, and bounds what it reads', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    const policy = await executePolicy(ws.path, home.path);
    const options: ReadWorkspaceFileOptions = { policy, within: ws.path, maxBytes: 10, overflow: 'cut' };
    execFileSync('mkfifo', [path.join(ws.path, 'fifo')]);
    await mkdir(path.join(ws.path, 'dir'));
    expect(await readWorkspaceFile(path.join(ws.path, 'fifo'), options)).toMatchObject({
      reason: 'not_file',
      message: expect.stringContaining('a FIFO'),
    });
    expect(await readWorkspaceFile(path.join(ws.path, 'dir'), options)).toMatchObject({ reason: 'not_file' });
    await symlink('/dev/zero', path.join(ws.path, 'zero'));
    expect(
      await readWorkspaceFile(path.join(ws.path, 'zero'), { ...options, within: undefined }),
    ).toMatchObject({ status: 'refused', reason: 'not_file' });
    await writeFile(path.join(ws.path, 'long.md'), '0123456789abcdef');
    const cut = await readWorkspaceFile(path.join(ws.path, 'long.md'), options);
    expect([text(cut), cut.status === 'read' && cut.truncated]).toEqual(['0123456789', true]);
    expect(
      await readWorkspaceFile(path.join(ws.path, 'long.md'), { ...options, overflow: 'refuse' }),
    ).toMatchObject({ status: 'refused', reason: 'too_large' });
  });
});
