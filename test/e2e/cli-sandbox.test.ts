import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PolicyReport } from '../../harness/policy/policy-report.js';
import { distPath } from '../../harness/project-paths.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { hostDir } from '../support/host-dir.js';
import { eventually, pidsWithMarker } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;
const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('skate policy show', () => {
  it('prints the resolved policy with absolute paths, its enforcement and resource limits as JSON', async () => {
    await using dir = await tempDir();
    const result = await runCli(['policy', 'show', 'execute', '--workspace', dir.path, '--json']);
    expect(result.code).toBe(0);
    const report = PolicyReport.parse(JSON.parse(result.stdout));
    expect(report.policy.name).toBe('execute');
    expect(report.policy.write.allow).toEqual([dir.path]);
    const paths = [
      ...report.policy.read.allow,
      ...report.policy.read.deny,
      ...report.policy.write.allow,
      ...report.policy.protected,
    ];
    for (const p of paths) expect(path.isAbsolute(p), p).toBe(true);
    expect(paths.join('\n')).not.toMatch(/~|\$\{workspace\}/);
    expect(report.enforcement.level).toBe(support.available ? 'kernel' : 'best-effort');
    if (!support.available) expect(report.enforcement.reason).toBeTruthy();
    expect(['cgroup-v1', 'cgroup-v2', 'none']).toContain(report.resourceLimits);
  });

  it('says why the full policy gets no sandbox, in text', async () => {
    await using dir = await tempDir();
    const result = await runCli(['policy', 'show', 'full', '--workspace', dir.path]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/enforcement\s+none: the policy restricts nothing/);
    expect(result.stdout).toMatch(/resource limits\s+none/);
  });

  it('exits 2 for an unknown policy or subcommand', async () => {
    await using dir = await tempDir();
    for (const args of [
      ['policy', 'show', 'nonexistent'],
      ['policy', 'list'],
      ['policy', 'show', 'a', 'b'],
    ]) {
      const result = await runCli(args, { cwd: dir.path });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
    }
  });
});

describe.skipIf(noSandbox)('skate sandbox', () => {
  it('passes stdin through and returns the command’s exit code', async () => {
    await using dir = await tempDir();
    const result = await runCli(['sandbox', '--workspace', dir.path, '--', 'sh', '-c', 'cat; pwd; exit 7'], {
      stdin: 'from stdin\n',
    });
    expect(result).toMatchObject({ code: 7, stdout: `from stdin\n${dir.path}\n` });
  });

  it('exits 128+signal when the command is killed', async () => {
    await using dir = await tempDir();
    const result = await runCli(['sandbox', '--workspace', dir.path, '--', 'sh', '-c', 'kill -TERM $$']);
    expect(result.code, result.stderr).toBe(143);
  });

  it('clears the environment to the policy allowlist, without the harness credentials', async () => {
    await using dir = await tempDir();
    const env = {
      ...process.env,
      ANTHROPIC_API_KEY: 'sk-test-secret',
      NOT_ALLOWED: 'hidden',
      LANG: 'C.UTF-8',
    };
    const result = await runCli(['sandbox', '--workspace', dir.path, '--', 'env'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('SKATE_SANDBOX=1');
    expect(result.stdout).toContain('LANG=C.UTF-8');
    expect(result.stdout).not.toMatch(/sk-test-secret|ANTHROPIC|NOT_ALLOWED|hidden/);
  });

  it('confines the command like the shell tool: workspace writable, the rest read-only, no network, no caps', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    const tag = randomBytes(4).toString('hex');
    const script = [
      'echo made > inside.txt',
      `echo pwned > ${root.path}/outside-${tag}.txt`,
      `echo pwned > /etc/skate-${tag}`,
      'grep CapEff /proc/self/status',
      'exec 3<>/dev/tcp/127.0.0.1/9 && echo NET',
      'echo done',
    ].join('; ');
    const result = await runCli(['sandbox', '--workspace', ws, '--', 'bash', '-c', script]);
    const escapedToEtc = existsSync(`/etc/skate-${tag}`);
    await rm(`/etc/skate-${tag}`, { force: true }); // only there if the test is about to fail
    expect(result.stdout).toContain('CapEff:\t0000000000000000');
    expect(result.stdout).not.toContain('NET');
    expect(result.stdout).toContain('done');
    expect(await readFile(path.join(ws, 'inside.txt'), 'utf8')).toBe('made\n');
    expect(existsSync(path.join(root.path, `outside-${tag}.txt`))).toBe(false);
    expect(escapedToEtc).toBe(false);
  });

  it('shows nothing new in the workspace while the command runs, on the host or inside', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    await writeFile(path.join(ws, 'main.ts'), 'export {};\n');
    execFileSync('git', ['init', '-q', ws]);
    const before = (await readdir(ws)).sort();
    const running = runCli([
      'sandbox',
      '--workspace',
      ws,
      '--',
      'sh',
      '-c',
      'ls -A; git status --porcelain --untracked-files=all; touch started; sleep 2',
    ]);
    expect(await eventually(() => existsSync(path.join(ws, 'started')), 15_000)).toBe(true);
    const during = (await readdir(ws)).filter((name) => name !== 'started').sort();
    const result = await running;
    expect(during).toEqual(before);
    expect(result.code).toBe(0);
    // Inside: the same entries, and git sees only the user's file (plus the marker).
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([...before, '?? main.ts']);
    expect((await readdir(ws)).sort()).toEqual([...before, 'started'].sort());
  });

  it('refuses a protected name that does not exist, and says nothing about names the command may make', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    const result = await runCli([
      'sandbox',
      '--workspace',
      ws,
      '--',
      'sh',
      '-c',
      'mkdir .vscode || echo refused',
    ]);
    expect(result.stdout).toBe('refused\n');
    expect(result.stderr).toMatch(/cannot create directory .\.vscode.: Permission denied/);
    const quiet = await runCli(['sandbox', '--workspace', ws, '--', 'sh', '-c', 'mkdir made-by-command']);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(await readdir(ws)).toEqual(['made-by-command']);
  });

  it('leaves no process behind when skate itself is told to stop', async () => {
    await using dir = await tempDir();
    const mark = `skate-cli-${randomBytes(6).toString('hex')}`;
    const { spawn } = await import('node:child_process');
    const child = spawn(
      process.execPath,
      [
        distPath('cli', 'skate.js'),
        'sandbox',
        '--workspace',
        dir.path,
        '--',
        'bash',
        '-c',
        // Quoted so that only the daemon's own name, not skate's argv, holds the marker.
        `setsid bash -c 'exec -a ${mark}"-daemon" sleep 1000' & sleep 1000`,
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    expect(await eventually(async () => (await pidsWithMarker(`${mark}-daemon`)).length > 0)).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(await eventually(async () => (await pidsWithMarker(mark)).length === 0)).toBe(true);
  });

  it.skipIf(!hasScript)(
    'passes a terminal through, without letting the command inject keystrokes into it',
    async () => {
      await using dir = await tempDir();
      const cli = `${process.execPath} ${distPath('cli', 'skate.js')} sandbox --workspace ${dir.path} --`;
      const inner = `test -t 0 && test -t 1 && echo IS-A-TTY; python3 -c 'import fcntl, termios; fcntl.ioctl(0, termios.TIOCSTI, b"x")' 2>/dev/null && echo INJECTED; true`;
      const output = execFileSync(
        'script',
        ['-qec', `${cli} bash -c "${inner.replaceAll('"', '\\"')}"`, '/dev/null'],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: 20_000,
        },
      );
      expect(output).toContain('IS-A-TTY');
      expect(output).not.toContain('INJECTED');
    },
  );

  it('exits 2 on usage errors', async () => {
    await using dir = await tempDir();
    const cases: [string[], string][] = [
      [['sandbox'], 'needs a command'],
      [['sandbox', '--'], 'needs a command'],
      [['sandbox', 'ls'], 'put the command after --'],
      [['sandbox', '--sandbox', 'maybe', '--', 'true'], '--sandbox takes required or best-effort'],
      [['sandbox', '--bogus', '--', 'true'], 'unknown option --bogus'],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { cwd: dir.path });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });
});
