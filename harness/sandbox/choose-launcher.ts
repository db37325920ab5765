import type { EnforcementLevel, ResolvedPolicy } from '../../shared/policy.js';
import { type ExecutorLauncher, unconfinedLauncher } from './executor-launch.js';
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

/** What enforcement an executor for a policy would get on this machine, and why when not the kernel's. */
export interface EnforcementOutlook {
  level: EnforcementLevel;
  /** Why the level is not `kernel`. */
  reason?: string;
  /** How to get the kernel sandbox, when it is missing. */
  fix?: string;
}

/**
 * The same decision `launcherFor` makes, as a report: `none` for a policy that
 * restricts nothing, `kernel` where bubblewrap works, and otherwise `best-effort`,
 * which executors accept only with `--sandbox best-effort` (by default they refuse).
 */
export async function enforcementOutlook(policy: ResolvedPolicy): Promise<EnforcementOutlook> {
  if (isUnrestricted(policy)) {
    return { level: 'none', reason: 'the policy restricts nothing, so no sandbox is built' };
  }
  const support = await probeSandbox();
  if (support.available) return { level: 'kernel' };
  return {
    level: 'best-effort',
    reason: `${support.problem}; executors refuse to start unless given --sandbox best-effort, and then only the tools' own checks apply`,
    fix: support.fix,
  };
}
