import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { testPolicy } from '../support/policies.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { type SandboxedExecutor, sandboxedExecutor } from '../support/sandboxed-executor.js';
import { type TempDir, tempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

const SECRET = 'sk-test-secret';
/** Put into this test process's environment, as a harness started by a user would have them. */
const HARNESS_ENV: Record<string, string> = {
  ANTHROPIC_API_KEY: SECRET,
  CLAUDE_CODE_OAUTH_TOKEN: 'claude-test-token',
  SKATE_EXECUTOR_TOKEN: 'executor-test-token',
  // The key's value under an innocent name: withheld because of its value.
  COPY_OF_KEY: SECRET,
  SKATE_TEST_ALLOWED: 'visible-value',
  SKATE_TEST_HIDDEN: 'hidden-value',
};
const NEVER_INSIDE = [SECRET, 'claude-test-token', 'executor-test-token', 'hidden-value'];

describe.skipIf(noSandbox)('sandbox escapes: /proc and the environment', () => {
  let dir: TempDir;
  let executor: SandboxedExecutor;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    for (const [name, value] of Object.entries(HARNESS_ENV)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    dir = await tempDir();
    executor = await sandboxedExecutor(
      testPolicy(dir.path, {
        environment: {
          // Asks for the secrets by name and by pattern: they must still stay out.
          allow: [
            'PATH',
            'HOME',
            'SKATE_TEST_ALLOWED',
            'ANTHROPIC_API_KEY',
            'CLAUDE_*',
            'SKATE_EXECUTOR_TOKEN',
            'COPY_OF_KEY',
          ],
          set: { SKATE_SET: 'fixed', ANTHROPIC_BASE_URL: 'http://evil.invalid' },
        },
      }),
    );
  });

  afterAll(async () => {
    await executor?.[Symbol.asyncDispose]();
    await dir?.[Symbol.asyncDispose]();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('passes only the allowlisted environment, and never the harness credentials', async () => {
    const run = await executor.sh('env');
    expect(run.output).toContain('SKATE_TEST_ALLOWED=visible-value');
    expect(run.output).toContain('SKATE_SET=fixed');
    for (const name of [
      'SKATE_TEST_HIDDEN',
      'ANTHROPIC_',
      'CLAUDE_',
      'SKATE_EXECUTOR_TOKEN',
      'COPY_OF_KEY',
    ]) {
      expect(run.output, name).not.toContain(name);
    }
    for (const secret of NEVER_INSIDE) expect(run.output).not.toContain(secret);
  });

  it('leaves no secret anywhere in /proc inside the sandbox', async () => {
    // From a file, so that grep's own command line does not hold what it looks for.
    await executor.tool('write_file', { path: 'patterns.txt', content: `${NEVER_INSIDE.join('\n')}\n` });
    // Errors (environ of processes outside the command's Landlock domain) are expected; matches are not.
    const run = await executor.sh(
      'grep -r -a -l -F -f patterns.txt /proc/[0-9]*/environ /proc/[0-9]*/cmdline /proc/1/cmdline 2>/dev/null; echo "grep=$?"',
    );
    expect(run.output).toContain('grep=');
    expect(run.output).not.toMatch(/\/proc\/\d+\//);
    // The same search does find what is there: the allowed variable, in the processes' environments.
    await executor.tool('write_file', { path: 'control.txt', content: 'visible-value\n' });
    const control = await executor.sh('grep -r -a -l -F -f control.txt /proc/[0-9]*/environ 2>/dev/null');
    expect(control.output).toMatch(/\/proc\/\d+\/environ/);
    // pid 1 is skate-confine (bwrap runs --as-pid-1): its argv is visible, bubblewrap's is not.
    const cmdline = await executor.sh("tr '\\0' ' ' < /proc/1/cmdline");
    expect(cmdline.output).toContain('skate-confine');
    for (const secret of NEVER_INSIDE) expect(cmdline.output).not.toContain(secret);
  });

  it('shows no process of the harness: the sandbox has its own pid namespace', async () => {
    const run = await executor.sh("for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done");
    expect(run.output).not.toMatch(/vitest/);
    expect(run.output).toMatch(/executor\.js/);
    const environ = await executor.sh('cat /proc/2/environ >/dev/null && echo READ-EXECUTOR-ENVIRON');
    // The executor sits outside the command's Landlock domain, so even its harmless environment is out of reach.
    expect(environ.output).not.toContain('READ-EXECUTOR-ENVIRON');
  });

  it('started the executor itself with no secret in its environment or argv (checked on the host)', async () => {
    const pids = [executor.client.pid!, ...(await processDescendants(executor.client.pid!))];
    const executorPid = (
      await Promise.all(pids.map(async (pid) => [pid, await commandLine(pid)] as const))
    ).find(
      ([, cmd]) => cmd.includes('executor.js') && !cmd.includes('bwrap') && !cmd.includes('skate-confine'),
    )?.[0];
    expect(executorPid).toBeDefined();
    for (const pid of pids) {
      const environ = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
      const argv = await commandLine(pid);
      for (const secret of NEVER_INSIDE) {
        expect(environ, `environ of ${pid}`).not.toContain(secret);
        expect(argv, `argv of ${pid}`).not.toContain(secret);
      }
    }
  });
});
