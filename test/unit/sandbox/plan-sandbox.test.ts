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

  it("shows a hidden directory (remote MCP servers' logins) empty, after every other mount, under a policy that reads all", async () => {
    await using home = await hostDir('home-');
    await using empty = await hostDir('empty-');
    const hidden = path.join(home.path, '.skate', 'mcp-auth');
    await mkdir(hidden, { recursive: true });
    const missing = path.join(home.path, 'not-there');
    const plan = await planSandbox({
      policy: testPolicy(home.path),
      runtimePaths: [],
      emptyDir: empty.path,
      home: home.path,
      hidden: [hidden, missing],
    });
    const masks = plan.steps.filter((step) => step.op === 'ro-bind' && step.src === empty.path);
    expect(masks.map((step) => step.dest)).toEqual([hidden]);
    // Later than the read-only `~/.skate` (a write root here): it stays covered.
    const last = plan.steps.findLastIndex(
      (step) => 'dest' in step && step.dest === path.join(home.path, '.skate'),
    );
    expect(plan.steps.indexOf(masks[0] as (typeof plan.steps)[number])).toBeGreaterThan(last);
  });

  it('shows a hidden file (your settings) as /dev/null, and a hidden link where it leads', async () => {
    await using home = await hostDir('home-');
    await using empty = await hostDir('empty-');
    const settings = path.join(home.path, '.skate', 'settings.json');
    const real = path.join(home.path, 'dotfiles', 'skate.json');
    const linked = path.join(home.path, 'other', 'settings.json');
    await mkdir(path.dirname(settings), { recursive: true });
    await mkdir(path.dirname(real), { recursive: true });
    await mkdir(path.dirname(linked), { recursive: true });
    await writeFile(settings, '{}');
    await writeFile(real, '{}');
    await symlink(real, linked);
    const plan = await planSandbox({
      policy: testPolicy(home.path),
      runtimePaths: [],
      emptyDir: empty.path,
      home: home.path,
      hidden: [settings, linked, path.join(home.path, 'not-there.json')],
    });
    const masks = plan.steps.filter((step) => step.op === 'ro-bind' && step.src === '/dev/null');
    expect(masks.map((step) => step.dest)).toEqual([settings, real]);
  });

  it('plans no entry in the workspace for protected names that do not exist: the guard refuses them, their directories pinned', async () => {
    await using workspace = await hostDir('ws-');
    await using empty = await hostDir('empty-');
    const ws = workspace.path;
    await mkdir(path.join(ws, '.git'));
    await mkdir(path.join(ws, '.vscode'));
    await mkdir(path.join(ws, 'sub'));
    const protectedPaths = [
      '.git/hooks',
      '.git/config',
      '.vscode',
      '.envrc',
      '.claude',
      'sub/.idea',
      'a/b/c',
    ].map((p) => path.join(ws, p));
    const plan = await planSandbox({
      policy: testPolicy(ws, { protected: protectedPaths }),
      runtimePaths: [],
      emptyDir: empty.path,
      home: empty.path,
    });
    expect(plan.guard?.names).toEqual(['.skate', '.mcp.json', '.claude']);
    expect(plan.guard?.deny).toEqual(
      expect.arrayContaining([
        { dir: path.join(ws, '.git'), name: 'hooks' },
        { dir: path.join(ws, '.git'), name: 'config' },
        { dir: ws, name: '.envrc' },
        { dir: ws, name: '.claude' },
        { dir: path.join(ws, 'sub'), name: '.idea' },
        { dir: ws, name: 'a' },
        // Configuration a later run reads, whatever the policy lists (`.claude` covers `.claude/agents`).
        { dir: ws, name: '.skate' },
        { dir: ws, name: '.mcp.json' },
      ]),
    );
    expect(plan.guard?.deny).toHaveLength(8);
    const readOnly = plan.steps.filter((step) => step.op === 'ro-bind').map((step) => step.dest);
    expect(readOnly).toContain(path.join(ws, '.vscode'));
    expect(readOnly.filter((p) => p.startsWith(`${ws}/`))).toEqual([path.join(ws, '.vscode')]);
    // The directories the guard's names are refused in cannot be renamed away and recreated.
    const pinned = plan.steps.filter((step) => step.op === 'bind').map((step) => step.dest);
    expect(pinned).toEqual(expect.arrayContaining([ws, path.join(ws, '.git'), path.join(ws, 'sub')]));
  });

  it('keeps Skate’s own configuration read-only whatever the policy lists: ~/.skate, the workspace’s and nested ones', async () => {
    await using home = await hostDir('home-');
    await using empty = await hostDir('empty-');
    const ws = path.join(home.path, 'ws');
    await mkdir(path.join(home.path, '.skate'), { recursive: true });
    await mkdir(path.join(ws, 'sub', '.skate', 'sessions'), { recursive: true });
    // A sub-directory's .mcp.json is what a run started there reads: read-only too.
    await writeFile(path.join(ws, 'sub', '.mcp.json'), '{"mcpServers":{}}');
    // A sub-directory's .claude/agents is what a run started there offers as agents: read-only when
    // it exists, refused when only its .claude does; the rest of a .claude stays writable.
    await mkdir(path.join(ws, 'sub', '.claude', 'agents'), { recursive: true });
    await mkdir(path.join(ws, 'bare', '.claude', 'commands'), { recursive: true });
    await mkdir(path.join(ws, 'linked', '.claude', 'real'), { recursive: true });
    await symlink('real', path.join(ws, 'linked', '.claude', 'agents'));
    // The workspace is the home directory: ~/.skate lies in the write root.
    const plan = await planSandbox({
      policy: testPolicy(home.path, { protected: [] }),
      runtimePaths: [],
      emptyDir: empty.path,
      home: home.path,
    });
    const readOnly = plan.steps.filter((step) => step.op === 'ro-bind').map((step) => step.dest);
    expect(readOnly).toEqual(
      expect.arrayContaining([
        path.join(home.path, '.skate'),
        path.join(ws, 'sub', '.skate'),
        path.join(ws, 'sub', '.mcp.json'),
        path.join(ws, 'sub', '.claude', 'agents'),
      ]),
    );
    expect(readOnly).not.toContain(path.join(ws, 'sub', '.claude'));
    expect(readOnly).not.toContain(path.join(ws, 'bare', '.claude'));
    // A link is not mounted over (the loader reads no agent folder reached through one).
    expect(readOnly).not.toContain(path.join(ws, 'linked', '.claude', 'real'));
    const pinned = plan.steps.filter((step) => step.op === 'bind').map((step) => step.dest);
    expect(pinned).toEqual(
      expect.arrayContaining([path.join(ws, 'sub', '.claude'), path.join(ws, 'bare', '.claude')]),
    );
    // The home is the workspace: its `.mcp.json` and `.claude/agents` are refused too, though unlisted.
    expect(plan.guard).toEqual({
      deny: [
        { dir: home.path, name: '.mcp.json' },
        { dir: home.path, name: '.claude' },
        { dir: path.join(ws, 'bare', '.claude'), name: 'agents' },
      ],
      names: ['.skate', '.mcp.json', '.claude'],
      trees: ['.skate', '.mcp.json', '.claude/agents'],
    });
    // A read-only policy writes nothing: no guard to run.
    const readonly = await planSandbox({
      policy: testPolicy(home.path, { protected: [], write: { allow: [] } }),
      runtimePaths: [],
      emptyDir: empty.path,
      home: home.path,
    });
    expect(readonly.guard).toBeUndefined();
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
    expect(plan.guard?.deny.filter((d) => d.dir.startsWith(ws))).toEqual([
      { dir: ws, name: '.skate' },
      { dir: ws, name: '.mcp.json' },
      { dir: ws, name: '.claude' },
    ]);
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
