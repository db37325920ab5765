import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { executorEnvironment } from '../executor/executor-env.js';
import { confineWrapper, type ExecutorLauncher } from '../executor/executor-launch.js';
import { distPath, projectRoot } from '../project-paths.js';
import { createCgroupLimits } from './cgroup-limits.js';
import { mountArgs } from './mount-plan.js';
import { acquirePlaceholders } from './placeholders.js';
import { planSandbox } from './plan-sandbox.js';
import { probeSandbox } from './probe-sandbox.js';
import { SandboxUnavailableError } from './sandbox-errors.js';

let emptyDir: string | undefined;
let sequence = 0;

/** An empty directory mounted over denied directories; one per harness process. */
function sharedEmptyDir(): string {
  if (!emptyDir) {
    const dir = mkdtempSync(path.join(tmpdir(), 'skate-empty-'));
    emptyDir = dir;
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return emptyDir;
}

/**
 * The namespaces and privileges of every sandbox. As root, bubblewrap keeps all
 * capabilities unless told otherwise and a nested user namespace could undo
 * read-only mounts, so both are taken away explicitly.
 */
export function isolationArgs(policy: ResolvedPolicy): string[] {
  return [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(policy.network.mode === 'off' ? ['--unshare-net'] : []),
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--new-session',
    '--die-with-parent',
    '--hostname',
    'skate-sandbox',
  ];
}

export interface KernelLauncherOptions {
  /** Things the user should know about this sandbox, e.g. a scan that hit its limits. */
  onNote?(note: string): void;
}

/**
 * Starts executors inside bubblewrap built from their policy, in cgroups that
 * bound their memory and process count, with every command they run wrapped in
 * skate-confine. Refuses (fail closed) when bubblewrap cannot work here.
 */
export function kernelLauncher(options: KernelLauncherOptions = {}): ExecutorLauncher {
  return async (policy) => {
    const support = await probeSandbox();
    if (!support.available) throw new SandboxUnavailableError(policy.name, support.problem, support.fix);
    const plan = await planSandbox({
      policy,
      // The node install (binary and its libraries) and Skate itself must stay readable.
      runtimePaths: [path.dirname(path.dirname(process.execPath)), projectRoot()],
      emptyDir: sharedEmptyDir(),
      home: homedir(),
    });
    for (const note of plan.notes) options.onNote?.(note);
    const releasePlaceholders = await acquirePlaceholders(plan.placeholders);
    const lease = await createCgroupLimits(policy.limits, `skate-${process.pid}-${++sequence}`);
    if (!lease) options.onNote?.('cgroups are not writable here: memory and process limits are not enforced');
    const confine = distPath('bin', 'skate-confine');
    const entry = distPath('executor', 'bundle', 'executor.js');
    return {
      command: confine,
      args: [
        // bwrap's outer process must not outlive the harness; --die-with-parent covers the inner one.
        '--pdeathsig',
        ...(lease?.procsFiles.flatMap((file) => ['--cgroup', file]) ?? []),
        '--',
        support.bwrap,
        ...isolationArgs(policy),
        ...mountArgs(plan.steps),
        '--chdir',
        policy.workspace,
        '--',
        process.execPath,
        entry,
      ],
      env: executorEnvironment(policy, process.env),
      cwd: policy.workspace,
      enforcement: 'kernel',
      resourceLimits: lease?.kind ?? 'none',
      commandWrapper: confineWrapper(),
      async cleanup() {
        await lease?.release();
        await releasePlaceholders();
      },
    };
  };
}
