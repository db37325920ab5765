import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;
const COMMIT = 'git -c user.email=agent@skate -c user.name=agent commit -q -m';

function git(ws: string, ...args: string[]): string {
  return execFileSync('git', ['-C', ws, ...args], { encoding: 'utf8' });
}

/** Hashes of everything git runs or follows from its directory. */
async function gitControl(ws: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const dir = path.join(ws, '.git');
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const key = path.relative(dir, full);
    if (!/^(hooks|config|info|commondir|modules|worktrees)(\/|\.|$)/.test(key)) continue;
    result[key] = entry.isFile()
      ? createHash('sha256')
          .update(await readFile(full))
          .digest('hex')
      : 'dir';
  }
  return result;
}

async function repo(root: string): Promise<string> {
  const ws = path.join(root, 'ws');
  await mkdir(ws);
  git(root, 'init', '-q', ws);
  await writeFile(path.join(ws, 'main.ts'), 'export {};\n');
  git(ws, 'add', 'main.ts');
  git(ws, '-c', 'user.email=u@u', '-c', 'user.name=u', 'commit', '-q', '-m', 'user');
  return ws;
}

function sandbox(ws: string, policy: string, script: string): ReturnType<typeof runCli> {
  return runCli(['sandbox', '--policy', policy, '--workspace', ws, '--', 'sh', '-c', script], {
    timeoutMs: 30_000,
  });
}

describe.skipIf(noSandbox)('git in the workspace', () => {
  it('fails to commit under the default policy, and the host repository is unchanged', async () => {
    await using root = await hostDir();
    const ws = await repo(root.path);
    const head = git(ws, 'rev-parse', 'HEAD');
    await writeFile(path.join(ws, 'a.txt'), 'x\n');
    const result = await sandbox(ws, 'execute', `git add a.txt && ${COMMIT} agent`);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Read-only file system');
    expect(git(ws, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(ws, 'status', '--porcelain')).toBe('?? a.txt\n');
  });

  it('stages and commits under execute-git, with the commit on the host, while hooks, config and info stay read-only', async () => {
    await using root = await hostDir();
    const ws = await repo(root.path);
    const control = await gitControl(ws);
    const result = await sandbox(
      ws,
      'execute-git',
      `echo agent > a.txt && git add a.txt && ${COMMIT} "by the agent" && git branch feature && echo DONE`,
    );
    expect(result.stdout, result.stderr).toContain('DONE');
    expect(result.code).toBe(0);
    expect(git(ws, 'log', '--format=%s', '-2')).toBe('by the agent\nuser\n');
    expect(git(ws, 'show', 'HEAD:a.txt')).toBe('agent\n');
    expect(git(ws, 'branch', '--list', 'feature')).toContain('feature');
    expect(git(ws, 'status', '--porcelain')).toBe('');

    const attempts = [
      'echo "#!/bin/sh" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit',
      'echo "[core]\n\tfsmonitor = touch /tmp/pwned" >> .git/config',
      'echo "* filter=evil" > .git/info/attributes',
      'printf "../evil\n" > .git/commondir',
      'echo "[core]\n\tfsmonitor = x" > .git/config.worktree',
      'mkdir -p .git/modules/m/hooks',
      'mkdir -p .git/worktrees/w',
      'mv .git/hooks .git/hooks-old',
      'rm -rf .git/hooks',
      'mv .git/config .git/config-old',
      'mv .git .git-old',
    ];
    // One sandbox for all attempts (each in its own subshell, its status printed): eleven CLI starts
    // took most of the test's time on a loaded machine.
    const script = attempts
      .map((command, i) => `(${command}) >/dev/null 2>&1; echo "attempt ${i} $?"`)
      .join('\n');
    const run = await sandbox(ws, 'execute-git', script);
    attempts.forEach((command, i) => {
      const status = new RegExp(`^attempt ${i} (\\d+)$`, 'm').exec(run.stdout)?.[1];
      expect(status, command).toBeDefined();
      expect(status, command).not.toBe('0');
    });
    expect(await gitControl(ws)).toEqual(control);
    for (const name of ['hooks-old', 'config-old', 'commondir', 'config.worktree', 'modules', 'worktrees']) {
      expect(existsSync(path.join(ws, '.git', name)), name).toBe(false);
    }
    expect(existsSync(path.join(ws, '.git-old'))).toBe(false);
    expect(git(ws, 'status', '--porcelain')).toBe('');
  });
});
