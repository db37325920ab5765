import * as z from 'zod';
import { ResourceLimits } from '../../shared/executor-boot.js';
import { EnforcementLevel, ResolvedPolicy } from '../../shared/policy.js';
import { cgroupSupport } from '../sandbox/cgroup-limits.js';
import { enforcementOutlook } from '../sandbox/choose-launcher.js';
import { jsEvalOutlook } from './js-eval-outlook.js';

/** A resolved policy and what this machine enforces of it: `skate policy show` and the UI's `:policy`. */
export const PolicyReport = z.object({
  policy: ResolvedPolicy,
  enforcement: z.object({
    level: EnforcementLevel,
    reason: z.string().optional(),
    fix: z.string().optional(),
  }),
  resourceLimits: ResourceLimits,
  /** Whether js_eval can run here: the isolated-vm build for this Node, or why not and the fix. */
  jsEval: z.discriminatedUnion('status', [
    z.object({ status: z.literal('available'), runtime: z.string(), path: z.string() }),
    z.object({ status: z.literal('unavailable'), reason: z.string(), fix: z.string() }),
  ]),
});
export type PolicyReport = z.infer<typeof PolicyReport>;

/** What this machine would enforce of `policy`: the sandbox level, resource limits and js_eval. */
export async function policyReport(policy: ResolvedPolicy): Promise<PolicyReport> {
  const enforcement = await enforcementOutlook(policy);
  // Cgroups are only set up around a kernel sandbox.
  const resourceLimits = enforcement.level === 'kernel' ? await cgroupSupport(policy.limits) : 'none';
  const outlook = jsEvalOutlook();
  const jsEval: PolicyReport['jsEval'] =
    outlook.status === 'available'
      ? {
          status: 'available',
          runtime: `${outlook.build.label} on Node ${process.versions.node}`,
          path: outlook.path,
        }
      : outlook;
  return { policy, enforcement, resourceLimits, jsEval };
}

/** The report as `skate policy show` prints it: one labelled line per item. */
export function formatPolicyReport({ policy, enforcement, resourceLimits, jsEval }: PolicyReport): string {
  const list = (items: readonly string[]) => (items.length === 0 ? ['(none)'] : items);
  const block = (label: string, items: readonly string[]) =>
    list(items)
      .map((item, i) => `${(i === 0 ? label : '').padEnd(18)}${item}\n`)
      .join('');
  const { limits } = policy;
  const set = Object.entries(policy.environment.set).map(([name, value]) => `${name}=${value}`);
  const level =
    enforcement.level === 'kernel'
      ? 'kernel (bubblewrap namespaces and mounts, no capabilities, Landlock around commands)'
      : `${enforcement.level}: ${enforcement.reason}`;
  const limitsNote =
    resourceLimits === 'none'
      ? 'none: memory and process limits are not enforced here'
      : `${resourceLimits} (memory and process limits enforced)`;
  return [
    `policy            ${policy.name}\n`,
    `workspace         ${policy.workspace}\n`,
    block('read allow', policy.read.allow),
    block('read deny', policy.read.deny),
    block('write', policy.write.allow),
    block('protected', policy.protected),
    `network           ${policy.network.mode === 'allowlist' ? `allowlist: ${policy.network.allow.join(', ') || '(none)'}${policy.network.deny.length > 0 ? `; never ${policy.network.deny.join(', ')}` : ''}` : policy.network.mode}\n`,
    block('environment', policy.environment.allow),
    block('environment set', set),
    `limits            ${limits.commandTimeoutSeconds} s per command, ${limits.outputBytes} bytes of output, ` +
      `${limits.memoryMiB} MiB of memory, ${limits.processes} processes\n`,
    `enforcement       ${level}\n`,
    ...(enforcement.fix ? [`  fix             ${enforcement.fix}\n`] : []),
    `resource limits   ${limitsNote}\n`,
    jsEval.status === 'available'
      ? `js_eval           ${jsEval.runtime}\n`
      : `js_eval           unavailable: ${jsEval.reason}\n  fix             ${jsEval.fix}\n`,
  ].join('');
}
