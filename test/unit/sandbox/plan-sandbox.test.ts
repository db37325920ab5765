import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planSandbox } from '../../../harness/sandbox/plan-sandbox.js';
import { hostDir } from '../../support/host-dir.js';
import { testPolicy } from '../../support/policies.js';
import { tempDir } from '../../support/temp-dir.js';

describe('planSandbox', () => {
  it('keeps a resolver file that lives under /run-like private dirs visible when the network is on', async () => {
    // Ubuntu's /etc/resolv.conf points at systemd-resolved's stub under /run, which the sandbox replaces.
    await using privateDir = await tempDir('resolver-'); // under /tmp: private inside a sandbox
    await using etc = await hostDir('etc-');
    await using workspace = await hostDir('ws-');
    const stub = path.join(privateDir.path, 'stub-resolv.conf');
    await writeFile(stub, 'nameserver 127.0.0.53\n');
    const resolvConf = path.join(etc.path, 'resolv.conf');
    await symlink(stub, resolvConf);
    const plan = (mode: 'on' | 'off') =>
      planSandbox({
        policy: testPolicy(workspace.path, { network: { mode } }),
        runtimePaths: [],
        resolvConf,
        emptyDir: etc.path,
        home: workspace.path,
      });
    const bound = (steps: Awaited<ReturnType<typeof plan>>['steps']) =>
      steps.some((step) => step.op === 'ro-bind' && step.dest === stub);
    expect(bound((await plan('on')).steps)).toBe(true);
    expect(bound((await plan('off')).steps)).toBe(false);
  });

  it('plans no placeholder in the workspace, only inside .git, and lists the protected names left unmounted', async () => {
    await using workspace = await hostDir('ws-');
    await using empty = await hostDir('empty-');
    const ws = workspace.path;
    await mkdir(path.join(ws, '.git'));
    await mkdir(path.join(ws, '.vscode'));
    const protectedPaths = ['.git/hooks', '.git/config', '.vscode', '.envrc', '.claude', 'sub/.idea'].map(
      (p) => path.join(ws, p),
    );
    const plan = await planSandbox({
      policy: testPolicy(ws, { protected: protectedPaths }),
      runtimePaths: [],
      emptyDir: empty.path,
      home: empty.path,
    });
    expect(plan.placeholders).toEqual([
      { path: path.join(ws, '.git/hooks'), kind: 'dir' },
      { path: path.join(ws, '.git/config'), kind: 'file', content: '' },
    ]);
    expect(plan.unmountedAbsent.sort()).toEqual(
      ['.envrc', '.claude', 'sub/.idea'].map((p) => path.join(ws, p)).sort(),
    );
    const readOnly = plan.steps.filter((step) => step.op === 'ro-bind').map((step) => step.dest);
    expect(readOnly).toEqual(expect.arrayContaining([path.join(ws, '.vscode'), path.join(ws, '.git/hooks')]));
    expect(readOnly).not.toContain(path.join(ws, '.envrc'));
  });

  it('protects a gitfile (a linked worktree’s .git) when paths under it are protected', async () => {
    await using workspace = await hostDir('ws-');
    await using empty = await hostDir('empty-');
    const ws = workspace.path;
    await writeFile(path.join(ws, '.git'), 'gitdir: /elsewhere/.git/worktrees/ws\n');
    const plan = await planSandbox({
      policy: testPolicy(ws, { protected: [path.join(ws, '.git/hooks'), path.join(ws, '.git/config')] }),
      runtimePaths: [],
      emptyDir: empty.path,
      home: empty.path,
    });
    expect(plan.placeholders).toEqual([]);
    expect(plan.unmountedAbsent).toEqual([]);
    const gitfile = path.join(ws, '.git');
    expect(plan.steps.filter((step) => 'dest' in step && step.dest.startsWith(gitfile))).toEqual([
      { op: 'ro-bind', src: gitfile, dest: gitfile },
    ]);
  });
});

describe('planSandbox: scan limits', () => {
  it('notes a socket scan cut short (the documented residual risk), without warning that the policy is weakened', async () => {
    await using workspace = await hostDir('ws-');
    // tmpfs: making 20,000 files on this disk takes seconds, in memory a fraction of one.
    await using home = await tempDir('home-', existsSync('/dev/shm') ? '/dev/shm' : undefined);
    // More entries than the home scan reads (20,000).
    execFileSync('sh', ['-c', 'seq 1 20050 | xargs touch'], { cwd: home.path });
    const plan = await planSandbox({
      policy: testPolicy(workspace.path),
      runtimePaths: [],
      emptyDir: workspace.path,
      home: home.path,
    });
    expect(plan.notes).toContain(`scan of ${home.path} hit its limits; sockets beyond them are not masked`);
    expect(plan.warnings).toEqual([]);
  });
});
