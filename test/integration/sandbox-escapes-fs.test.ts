import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicy } from '../../harness/policy/load-policy.js';
import { projectRoot } from '../../harness/project-paths.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { narrowPolicy } from '../../shared/narrow-policy.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { hostDir } from '../support/host-dir.js';
import { testPolicy } from '../support/policies.js';
import { type SandboxedExecutor, sandboxedExecutor } from '../support/sandboxed-executor.js';
import type { TempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

async function shippedPolicy(name: string, workspace: string): Promise<ResolvedPolicy> {
  const loaded = await loadPolicy(name, { workspace });
  if (!loaded.ok) throw new Error(loaded.problem.message);
  return loaded.policy;
}

/**
 * Every test here tries to change the host from inside an executor under the
 * shipped `execute` policy, then looks at the host: the exit code alone proves
 * nothing (a write can "succeed" into a private /tmp or fail after landing).
 */
describe.skipIf(noSandbox)('sandbox escapes: the file system (execute policy)', () => {
  let root: TempDir;
  let ws: string;
  let outside: string;
  let executor: SandboxedExecutor;
  const tag = randomBytes(6).toString('hex');

  beforeAll(async () => {
    root = await hostDir();
    ws = path.join(root.path, 'ws');
    outside = path.join(root.path, 'outside');
    await mkdir(ws);
    await mkdir(outside);
    // A sibling whose name starts with the workspace's: a prefix check without `/` would let it through.
    await mkdir(`${ws}2`);
    await writeFile(path.join(outside, 'target.txt'), 'original\n');
    await symlink(outside, path.join(ws, 'link-out'));
    await symlink(path.join(outside, 'target.txt'), path.join(ws, 'link-file'));
    executor = await sandboxedExecutor(await shippedPolicy('execute', ws));
  });

  afterAll(async () => {
    await executor?.[Symbol.asyncDispose]();
    await root?.[Symbol.asyncDispose]();
    // Only there if a test failed: do not leave the evidence of an escape on the machine.
    for (const what of ['escape', 'remount', 'bind', 'userns'])
      await rm(`/etc/skate-${what}-${tag}`, { force: true });
    await rm(`/usr/local/skate-escape-${tag}`, { force: true });
    await rm(path.join(homedir(), `skate-escape-${tag}`), { force: true });
  });

  async function targetUnchanged(): Promise<void> {
    expect(await readFile(path.join(outside, 'target.txt'), 'utf8')).toBe('original\n');
    expect((await stat(path.join(outside, 'target.txt'))).nlink).toBe(1);
  }

  it('blocks shell writes outside the writable paths', async () => {
    const targets = [
      path.join(outside, `shell-${tag}`),
      path.join(`${ws}2`, `shell-${tag}`),
      `/etc/skate-escape-${tag}`,
      `/usr/local/skate-escape-${tag}`,
      path.join(homedir(), `skate-escape-${tag}`),
      path.join(root.path, `skate-escape-${tag}`),
    ];
    for (const target of targets) {
      const run = await executor.sh(`echo pwned > '${target}'`);
      expect(run.exitCode, target).not.toBe(0);
      expect(existsSync(target), target).toBe(false);
    }
  });

  it('keeps /tmp private: a write there succeeds inside and never reaches the host', async () => {
    const run = await executor.sh(`echo private > /tmp/skate-${tag} && cat /tmp/skate-${tag}`);
    expect(run).toMatchObject({ exitCode: 0, output: 'private\n' });
    expect(existsSync(`/tmp/skate-${tag}`)).toBe(false);
  });

  it('blocks file-tool writes outside the writable paths, with a denial the model can read', async () => {
    for (const target of [path.join(outside, `tool-${tag}`), path.join(`${ws}2`, `tool-${tag}`)]) {
      const result = await executor.tool('write_file', { path: target, content: 'pwned' });
      expect(result, target).toMatchObject({ isError: true, code: 'denied' });
      expect(existsSync(target), target).toBe(false);
    }
  });

  it('blocks `..` traversal out of the workspace, in the shell and in the file tools', async () => {
    const target = path.join(outside, `dotdot-${tag}`);
    const run = await executor.sh(
      `echo pwned > ../outside/dotdot-${tag}; echo pwned > ./x/../../outside/dotdot-${tag}`,
    );
    expect(run.exitCode).not.toBe(0);
    for (const input of [
      `../outside/dotdot-${tag}`,
      `sub/../../outside/dotdot-${tag}`,
      `${ws}/../outside/dotdot-${tag}`,
    ]) {
      expect(await executor.tool('write_file', { path: input, content: 'x' }), input).toMatchObject({
        code: 'denied',
      });
    }
    expect(existsSync(target)).toBe(false);
    const shadow = await executor.tool('read_file', { path: '../../../../../../../../etc/shadow' });
    expect(shadow).toMatchObject({ isError: true, code: 'denied' });
  });

  it('does not follow symlinks in the workspace out of it: shell', async () => {
    const run = await executor.sh(
      `echo pwned > link-out/via-link-${tag}; echo pwned >> link-file; echo pwned > link-file; cp /etc/hostname link-out/`,
    );
    expect(run.exitCode).not.toBe(0);
    expect(existsSync(path.join(outside, `via-link-${tag}`))).toBe(false);
    expect(existsSync(path.join(outside, 'hostname'))).toBe(false);
    await targetUnchanged();
  });

  it('does not follow symlinks in the workspace out of it: file tools', async () => {
    const attempts: [string, unknown][] = [
      ['write_file', { path: `link-out/tool-link-${tag}`, content: 'pwned' }],
      ['write_file', { path: 'link-file', content: 'pwned' }],
      ['edit_file', { path: 'link-file', old_string: 'original', new_string: 'pwned' }],
    ];
    for (const [tool, input] of attempts) {
      expect(await executor.tool(tool, input), tool).toMatchObject({ isError: true });
    }
    expect(existsSync(path.join(outside, `tool-link-${tag}`))).toBe(false);
    await targetUnchanged();
  });

  it('does not follow symlinks made inside the sandbox out of it', async () => {
    const run = await executor.sh(
      [
        `ln -s /etc etc-link-${tag} && echo pwned > etc-link-${tag}/skate-escape-${tag}`,
        `ln -s ${outside} out-link-${tag} && echo pwned > out-link-${tag}/made-${tag}`,
        `ln -s ${outside}/target.txt file-link-${tag} && echo pwned > file-link-${tag}`,
      ].join('; '),
    );
    expect(run.exitCode).not.toBe(0);
    // The links themselves are ordinary files in the workspace.
    expect(existsSync(path.join(ws, `out-link-${tag}`))).toBe(true);
    for (const input of [
      `out-link-${tag}/tool-${tag}`,
      `etc-link-${tag}/skate-escape-${tag}`,
      `file-link-${tag}`,
    ]) {
      expect(await executor.tool('write_file', { path: input, content: 'pwned' }), input).toMatchObject({
        code: 'denied',
      });
    }
    expect(existsSync(`/etc/skate-escape-${tag}`)).toBe(false);
    expect(existsSync(path.join(outside, `made-${tag}`))).toBe(false);
    expect(existsSync(path.join(outside, `tool-${tag}`))).toBe(false);
    await targetUnchanged();
  });

  it('cannot hard-link a file from outside the workspace into it', async () => {
    const run = await executor.sh(
      `ln ${outside}/target.txt hard-${tag}; ln /etc/passwd passwd-${tag}; cp -l /etc/hostname host-${tag}`,
    );
    expect(run.output).toMatch(/Invalid cross-device link/);
    expect(existsSync(path.join(ws, `hard-${tag}`))).toBe(false);
    expect(existsSync(path.join(ws, `passwd-${tag}`))).toBe(false);
    await targetUnchanged();
  });

  it('cannot mount, remount or unmount anything', async () => {
    const run = await executor.sh(
      [
        'mount -o remount,rw / && touch /etc/skate-remount-' + tag,
        'mount -t tmpfs none /usr/local',
        `mount --bind ${ws} /etc && touch /etc/skate-bind-${tag}`,
        'umount /proc/sys',
        'umount -l /etc',
        `umount ${ws}/.git`,
        'echo survived',
      ].join('; '),
    );
    expect(run.output).toContain('survived');
    expect(run.output).not.toMatch(/^$/);
    for (const what of ['remount', 'bind']) expect(existsSync(`/etc/skate-${what}-${tag}`), what).toBe(false);
    const mounts = await executor.sh('grep -c " /usr/local tmpfs" /proc/self/mounts');
    expect(mounts.output.trim()).toBe('0');
  });

  it('holds no capabilities and cannot make user or mount namespaces', async () => {
    const caps = await executor.sh('grep -E "^Cap(Eff|Prm|Bnd|Amb)" /proc/self/status');
    expect(caps.output.trim().split('\n')).toHaveLength(4);
    for (const line of caps.output.trim().split('\n')) expect(line).toMatch(/:\s+0{16}$/);
    for (const command of ['unshare -U true', 'unshare -m true', 'unshare -r true', 'unshare -n true']) {
      expect((await executor.sh(command)).exitCode, command).not.toBe(0);
    }
    // The classic two-step: a new user namespace to get capabilities, then remount the root.
    const run = await executor.sh(
      `unshare -Urm sh -c 'mount -o remount,rw / && touch /etc/skate-userns-${tag}'`,
    );
    expect(run.exitCode).not.toBe(0);
    expect(existsSync(`/etc/skate-userns-${tag}`)).toBe(false);
  });

  it('cannot change kernel settings through /proc/sys (the sandbox is the host uid 0)', async () => {
    const before = await readFile('/proc/sys/kernel/core_pattern', 'utf8');
    // Opening for writing is enough to show the hole without changing anything if it were there.
    const run = await executor.sh(
      'exec 3>>/proc/sys/kernel/core_pattern && echo OPENED; v=$(cat /proc/sys/vm/swappiness); echo "$v" > /proc/sys/vm/swappiness && echo WROTE',
    );
    expect(run.output).not.toMatch(/OPENED|WROTE/);
    expect(run.output).toMatch(/Read-only file system/);
    expect(await readFile('/proc/sys/kernel/core_pattern', 'utf8')).toBe(before);
  });

  it.skipIf(!existsSync('/etc/shadow'))('hides root-readable secrets such as /etc/shadow', async () => {
    expect((await readFile('/etc/shadow', 'utf8')).length).toBeGreaterThan(0);
    // Masked by a read-only bind of /dev/null (on a nodev mount: opening it fails, reading yields nothing).
    const run = await executor.sh('cat /etc/shadow 2>/dev/null | wc -c; od -c /etc/shadow 2>&1 | head -3');
    expect(run.output.split('\n')[0]).toBe('0');
    expect(run.output).not.toContain('r   o   o   t');
    expect(await executor.tool('read_file', { path: '/etc/shadow' })).toMatchObject({ code: 'denied' });
  });
});

describe.skipIf(noSandbox)('sandbox escapes: write roots that are symlinks', () => {
  it('does not make a symlinked write root writable (a repository shipping .skate/plan.md -> elsewhere)', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    const victim = path.join(root.path, 'victim.txt');
    await mkdir(path.join(ws, '.skate'), { recursive: true });
    await writeFile(victim, 'original\n');
    await symlink(victim, path.join(ws, '.skate', 'plan.md'));
    // The launch prepares the plan policy's plan file, and refuses one that is a link.
    await expect(sandboxedExecutor(await shippedPolicy('plan', ws))).rejects.toThrow(
      /plan\.md is a symbolic link/,
    );
    expect(await readFile(victim, 'utf8')).toBe('original\n');
    // Any other write root that is a link is left read-only.
    await symlink(root.path, path.join(ws, 'docs'));
    await using executor = await sandboxedExecutor(
      testPolicy(ws, { write: { allow: [path.join(ws, 'docs')] } }),
    );
    const run = await executor.sh('echo pwned >> docs/victim.txt; echo pwned > docs/victim.txt');
    expect(run.exitCode).not.toBe(0);
    expect(await readFile(victim, 'utf8')).toBe('original\n');
    expect(executor.notes.join('\n')).toMatch(/reached through a symlink/);
    const tool = await executor.tool('write_file', { path: 'docs/victim.txt', content: 'pwned' });
    expect(tool).toMatchObject({ isError: true });
    expect(await readFile(victim, 'utf8')).toBe('original\n');
  });

  it('still lets the plan policy write its real plan file, and nothing else', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(path.join(ws, '.skate'), { recursive: true });
    await writeFile(path.join(ws, '.skate', 'plan.md'), '');
    await using executor = await sandboxedExecutor(await shippedPolicy('plan', ws));
    expect((await executor.sh('echo "# plan" > .skate/plan.md')).exitCode).toBe(0);
    expect(await readFile(path.join(ws, '.skate', 'plan.md'), 'utf8')).toBe('# plan\n');
    expect((await executor.sh('echo x > other.md')).exitCode).not.toBe(0);
    expect(existsSync(path.join(ws, 'other.md'))).toBe(false);
  });
});

describe.skipIf(noSandbox)('sandbox escapes: what the harness runs on the host', () => {
  it('keeps Skate’s own dist/ read-only even when a write root contains the checkout', async () => {
    await using root = await hostDir();
    // As when Skate works on its own checkout. Only access checks and empty appends below, so that
    // the real checkout stays untouched even if the mount were writable.
    const skate = projectRoot();
    const policy = testPolicy(root.path, { write: { allow: [root.path, skate] } });
    await using executor = await sandboxedExecutor(policy);
    const run = await executor.sh(
      [
        `test -w ${skate}/package.json && echo CHECKOUT-WRITABLE`,
        `test -w ${skate}/dist/bin/skate-confine && echo CONFINE-WRITABLE`,
        `(exec 3>>${skate}/dist/bin/skate-confine) 2>/dev/null && echo CONFINE-OPENED`,
        `(exec 3>>${skate}/dist/executor/bundle/executor.js) 2>/dev/null && echo BUNDLE-OPENED`,
        // A mount point cannot be renamed away (and recreated with a fake skate-confine in it).
        `grep -q " ${skate}/dist " /proc/self/mountinfo && echo DIST-PINNED`,
      ].join('; '),
    );
    // No false denial: the rest of the checkout is writable, as the policy says.
    expect(run.output).toContain('CHECKOUT-WRITABLE');
    expect(run.output).toContain('DIST-PINNED');
    expect(run.output).not.toMatch(/CONFINE-WRITABLE|CONFINE-OPENED|BUNDLE-OPENED/);
  });
});

describe.skipIf(noSandbox)('sandbox escapes: a sub-agent’s narrowed policy, enforced by the kernel', () => {
  it('writes only where the narrowed policy allows, never inside what the parent protects', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(path.join(ws, 'docs'), { recursive: true });
    await mkdir(path.join(ws, 'src'));
    const { execFileSync } = await import('node:child_process');
    execFileSync('git', ['init', '-q', ws]);
    const child = narrowPolicy(await shippedPolicy('execute', ws), {
      name: 'docs-writer',
      writePaths: [path.join(ws, 'docs'), path.join(ws, '.git', 'hooks'), path.join(root.path, 'outside')],
    });
    expect(child.write.allow).toEqual([path.join(ws, 'docs')]);
    await using executor = await sandboxedExecutor(child);
    expect((await executor.sh('echo ok > docs/a.md')).exitCode).toBe(0);
    const denied = await executor.sh('echo x > src/b.ts; echo x > .git/hooks/pre-commit; echo x > c.md');
    expect(denied.exitCode).not.toBe(0);
    expect(await readFile(path.join(ws, 'docs', 'a.md'), 'utf8')).toBe('ok\n');
    for (const file of ['src/b.ts', '.git/hooks/pre-commit', 'c.md']) {
      expect(existsSync(path.join(ws, file)), file).toBe(false);
    }
  });
});

describe.skipIf(noSandbox)('sandbox escapes: the readonly policy', () => {
  it('writes nothing to the host, but commands still get a private /tmp', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    await using executor = await sandboxedExecutor(await shippedPolicy('readonly', ws));
    expect((await executor.sh('echo x > a.txt')).exitCode).not.toBe(0);
    expect(await executor.tool('write_file', { path: 'a.txt', content: 'x' })).toMatchObject({
      isError: true,
    });
    expect(existsSync(path.join(ws, 'a.txt'))).toBe(false);
    expect(await executor.sh('echo t > /tmp/t && cat /tmp/t')).toMatchObject({ exitCode: 0, output: 't\n' });
  });
});

describe.skipIf(noSandbox)('sandbox: allowed operations still work under execute (no false denials)', () => {
  it('runs git, builds, writes the workspace, reads /etc and uses /tmp', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    const { execFileSync } = await import('node:child_process');
    // .git is protected, so the repository is made on the host, as a user's checkout would be.
    execFileSync('git', ['init', '-q', ws]);
    await writeFile(path.join(ws, 'README.md'), 'hello\n');
    await using executor = await sandboxedExecutor(await shippedPolicy('execute', ws));
    const status = await executor.sh(
      'git status --porcelain README.md && git log --oneline 2>&1 | head -1; true',
    );
    expect(status).toMatchObject({ exitCode: 0 });
    expect(status.output).toContain('?? README.md');
    const sub = await executor.sh('git init -q sub && git -C sub status --short && echo SUB-OK');
    expect(sub.output).toContain('SUB-OK');
    expect(existsSync(path.join(ws, 'sub', '.git', 'HEAD'))).toBe(true);
    const build = await executor.sh(
      `node -e "require('fs').mkdirSync('out',{recursive:true});require('fs').writeFileSync('out/built.js','ok')"`,
    );
    expect(build.exitCode).toBe(0);
    expect(await readFile(path.join(ws, 'out', 'built.js'), 'utf8')).toBe('ok');
    expect((await executor.sh('echo edited >> README.md')).exitCode).toBe(0);
    expect(await executor.tool('write_file', { path: 'notes.md', content: 'x\n' })).toMatchObject({
      isError: false,
    });
    expect(await readFile(path.join(ws, 'README.md'), 'utf8')).toBe('hello\nedited\n');
    expect(await readFile(path.join(ws, 'notes.md'), 'utf8')).toBe('x\n');
    const etc = await executor.sh('grep -c . /etc/os-release');
    expect(Number(etc.output.trim())).toBeGreaterThan(0);
    const tmp = await executor.sh('mktemp -d /tmp/x.XXXX >/dev/null && echo hi > /tmp/f && cat /tmp/f');
    expect(tmp).toMatchObject({ exitCode: 0, output: 'hi\n' });
  });
});
