import type { ResolvedPolicy } from '../../shared/policy.js';
import { type ExecutorLauncher, unconfinedLauncher } from '../executor/executor-launch.js';
import { type KernelLauncherOptions, kernelLauncher } from './kernel-launcher.js';
import { probeSandbox } from './probe-sandbox.js';
import { SandboxUnavailableError } from './sandbox-errors.js';

/** `required`: refuse to run a restricted policy without the kernel sandbox. `best-effort`: fall back to tool checks. */
export type SandboxMode = 'required' | 'best-effort';

/** A policy that restricts nothing needs no sandbox (the `full` policy). */
export function isUnrestricted(policy: ResolvedPolicy): boolean {
  return (
    policy.read.allow.includes('/') &&
    policy.read.deny.length === 0 &&
    policy.write.allow.includes('/') &&
    policy.protected.length === 0 &&
    policy.network.mode === 'on'
  );
}

/** How executors for this policy start here: in the kernel sandbox, or not at all unless the user accepts less. */
export async function launcherFor(
  policy: ResolvedPolicy,
  mode: SandboxMode,
  options: KernelLauncherOptions = {},
): Promise<ExecutorLauncher> {
  if (isUnrestricted(policy)) return unconfinedLauncher('none');
  const support = await probeSandbox();
  if (support.available) return kernelLauncher(options);
  if (mode === 'best-effort') {
    options.onNote?.(`no kernel sandbox (${support.problem}); only the tools' own checks apply`);
    return unconfinedLauncher('best-effort');
  }
  throw new SandboxUnavailableError(policy.name, support.problem, support.fix);
}
