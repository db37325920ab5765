import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { testPolicy } from '../support/policies.js';
import { type SandboxedExecutor, sandboxedExecutor } from '../support/sandboxed-executor.js';
import { type TempDir, tempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

// The environment's own cases (credentials by name and value, argv, /proc/*/environ, under every
// policy) are in test/security/environment.test.ts.
describe.skipIf(noSandbox)('sandbox escapes: /proc', () => {
  let dir: TempDir;
  let executor: SandboxedExecutor;

  beforeAll(async () => {
    dir = await tempDir();
    executor = await sandboxedExecutor(testPolicy(dir.path));
  });

  afterAll(async () => {
    await executor?.[Symbol.asyncDispose]();
    await dir?.[Symbol.asyncDispose]();
  });

  it('shows no process of the harness: the sandbox has its own pid namespace', async () => {
    const run = await executor.sh("for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done");
    expect(run.output).not.toMatch(/vitest/);
    expect(run.output).toMatch(/executor\.js/);
    const environ = await executor.sh('cat /proc/2/environ >/dev/null && echo READ-EXECUTOR-ENVIRON');
    // The executor sits outside the command's Landlock domain, so even its harmless environment is out of reach.
    expect(environ.output).not.toContain('READ-EXECUTOR-ENVIRON');
  });
});
