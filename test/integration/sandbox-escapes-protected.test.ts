import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { loadPolicy } from '../../harness/policy/load-policy.js';
import { kernelLauncher } from '../../harness/sandbox/kernel-launcher.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { hostDir } from '../support/host-dir.js';
import { sandboxedExecutor } from '../support/sandboxed-executor.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

async function executePolicy(workspace: string): Promise<ResolvedPolicy> {
  const loaded = await loadPolicy('execute', { workspace });
  if (!loaded.ok) throw new Error(loaded.problem.message);
  return loaded.policy;
}

/** Every file under `dir` with a hash of its content: a fingerprint of the host's .git. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const key = path.relative(dir, full);
    result[key] = entry.isFile()
      ? createHash('sha256')
          .update(await readFile(full))
          .digest('hex')
      : entry.isDirectory()
        ? 'dir'
        : 'other';
  }
  return result;
}

function gitStatus(dir: string): string {
  return execFileSync('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=all'], {
    encoding: 'utf8',
  });
}

describe.skipIf(noSandbox)('sandbox escapes: protected paths (execute policy)', () => {
  it('keeps .git read-only against writes, new hooks, renames and deletion, in the shell and the tools', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    execFileSync('git', ['init', '-q', ws]);
    execFileSync('git', [
      '-C',
      ws,
      '-c',
      'user.email=t@t',
      '-c',
      'user.name=t',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'x',
    ]);
    const before = await snapshot(path.join(ws, '.git'));
    {
      await using executor = await sandboxedExecutor(await executePolicy(ws));
      const attempts = [
        'echo "[core]\n\tfsmonitor = touch /tmp/pwned" >> .git/config',
        'echo "#!/bin/sh" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit',
        'mkdir .git/hooks/x',
        'rm -f .git/HEAD',
        'mv .git/hooks .git/hooks-old',
        'mv .git .git-old',
        'rm -rf .git',
        // Rename the parent's view: the workspace itself is a mount point, so this must fail too.
        `mv ${ws} ${ws}-moved`,
      ];
      for (const command of attempts) {
        expect((await executor.sh(command)).exitCode, command).not.toBe(0);
      }
      // And the recreate-after-rename trick, in one go.
      const swap = await executor.sh(
        'mv .git .git-old && mkdir -p .git/hooks && echo evil > .git/hooks/post-checkout',
      );
      expect(swap.exitCode).not.toBe(0);
      for (const [tool, input] of [
        ['write_file', { path: '.git/hooks/post-checkout', content: '#!/bin/sh\n' }],
        ['write_file', { path: '.git/config', content: '' }],
        ['edit_file', { path: '.git/HEAD', old_string: 'ref', new_string: 'x' }],
      ] as const) {
        expect(await executor.tool(tool, input), `${tool} ${input.path}`).toMatchObject({ code: 'denied' });
      }
      // git itself still reads the repository.
      expect((await executor.sh('git log --oneline | wc -l')).output.trim()).toBe('1');
    }
    expect(await snapshot(path.join(ws, '.git'))).toEqual(before);
    expect(existsSync(path.join(ws, '.git-old'))).toBe(false);
    expect(existsSync(`${ws}-moved`)).toBe(false);
  });

  it('leaves no trace in the workspace, on the host or inside, while protecting the names that exist', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(path.join(ws, '.vscode'), { recursive: true });
    await writeFile(path.join(ws, '.vscode', 'settings.json'), '{}\n');
    await writeFile(path.join(ws, '.envrc'), 'export A=1\n');
    await writeFile(path.join(ws, 'main.ts'), 'export {};\n');
    execFileSync('git', ['init', '-q', ws]);
    execFileSync('git', ['-C', ws, 'add', '-A']);
    execFileSync('git', ['-C', ws, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '-m', 'x']);
    const listing = (await readdir(ws)).sort();
    const gitBefore = await snapshot(path.join(ws, '.git'));
    {
      await using executor = await sandboxedExecutor(await executePolicy(ws));
      // While the executor runs: nothing new on the host, nothing untracked inside or out.
      expect((await readdir(ws)).sort()).toEqual(listing);
      expect(gitStatus(ws)).toBe('');
      expect(await executor.sh('git status --porcelain --untracked-files=all')).toMatchObject({
        output: '',
        exitCode: 0,
      });
      expect((await executor.sh('ls -A')).output.split('\n').filter(Boolean).sort()).toEqual(listing);
      const listed = await executor.tool('list_dir', { path: '.' });
      for (const name of ['sandbox-policies', '.claude', '.idea', '.bashrc', '.skate']) {
        expect(listed.output, name).not.toContain(name);
      }
      // The protected names that exist stay read-only.
      const attempts = [
        'echo \'{"tasks":[]}\' > .vscode/tasks.json',
        'echo {} > .vscode/settings.json',
        'mv .vscode vscode-old',
        'echo evil >> .envrc',
        'rm -f .envrc',
        'echo "#!/bin/sh" > .git/hooks/x',
        'echo "[core]" >> .git/config',
      ];
      for (const command of attempts) {
        expect((await executor.sh(command)).exitCode, command).not.toBe(0);
      }
      expect((await readdir(ws)).sort()).toEqual(listing);
    }
    expect((await readdir(ws)).sort()).toEqual(listing);
    expect(await readdir(path.join(ws, '.vscode'))).toEqual(['settings.json']);
    expect(await readFile(path.join(ws, '.envrc'), 'utf8')).toBe('export A=1\n');
    expect(await snapshot(path.join(ws, '.git'))).toEqual(gitBefore);
    expect(gitStatus(ws)).toBe('');
  });

  it('leaves no entry for protected names that do not exist, and lets neither the tools nor a command create them', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    let warnings: readonly string[] = [];
    {
      await using executor = await sandboxedExecutor(await executePolicy(ws));
      warnings = executor.warnings;
      expect(await readdir(ws)).toEqual([]);
      expect((await executor.sh('ls -A')).output).toBe('');
      for (const file of ['.envrc', '.vscode/settings.json', '.claude/settings.local.json', '.bashrc']) {
        expect(await executor.tool('write_file', { path: file, content: 'x' }), file).toMatchObject({
          code: 'denied',
        });
      }
      expect(await readdir(ws)).toEqual([]);
      // The create guard (skate-confine --guard) refuses the name itself: no mount, no entry.
      const made = await executor.sh('mkdir .vscode && echo {} > .vscode/tasks.json');
      expect(made.exitCode).not.toBe(0);
      expect(made.output).toContain('Permission denied');
    }
    expect(await readdir(ws)).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('refuses to start when a protected path is a symlink it could not pin (fail closed)', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(path.join(ws, 'real-vscode'), { recursive: true });
    await symlink(path.join(ws, 'real-vscode'), path.join(ws, '.vscode'));
    const error = await ExecutorClient.spawn({
      policy: await executePolicy(ws),
      launcher: kernelLauncher(),
    }).then(
      async (client) => {
        await client.shutdown();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'SandboxPlanError', message: expect.stringContaining('.vscode') });
    // Nothing was prepared on the host before the refusal.
    expect((await readdir(ws)).sort()).toEqual(['.vscode', 'real-vscode']);
  });

  it('keeps a protected file written before the executor started intact', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    await writeFile(path.join(ws, '.envrc'), 'export A=1\n');
    {
      await using executor = await sandboxedExecutor(await executePolicy(ws));
      expect((await executor.sh('echo evil >> .envrc; : > .envrc; rm -f .envrc')).exitCode).not.toBe(0);
    }
    expect(await readFile(path.join(ws, '.envrc'), 'utf8')).toBe('export A=1\n');
  });
});
