import { parseArgs } from 'node:util';
import * as z from 'zod';
import { ResourceLimits } from '../../../shared/executor-boot.js';
import { EnforcementLevel, ResolvedPolicy } from '../../../shared/policy.js';
import { jsEvalOutlook } from '../../policy/js-eval-outlook.js';
import { resolvePolicy, resolveWorkspace } from '../../runtime/start-executor.js';
import { cgroupSupport } from '../../sandbox/cgroup-limits.js';
import { enforcementOutlook } from '../../sandbox/choose-launcher.js';
import { COMMON, type CommandMain, parsed, WORKSPACE_JSON } from '../cli-flags.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

export interface PolicyShowOptions {
  policy: string;
  workspace: string;
  json: boolean;
}

/** What `skate policy show --json` prints. */
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

/** `skate policy show [P] [--workspace DIR] [--json]`. */
export const run: CommandMain = async (args) => {
  const [sub, ...rest] = args;
  if (sub !== 'show') throw new UsageError('the policy command is `skate policy show [P]`');
  const { values, positionals } = parsed(() =>
    parseArgs({ args: rest, options: WORKSPACE_JSON, allowPositionals: true }),
  );
  if (values.help) return help();
  if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`);
  return policyShowCommand({
    policy: positionals[0] ?? COMMON.policy.default,
    workspace: values.workspace,
    json: values.json,
  });
};

/**
 * `skate policy show P`: the policy resolved for a workspace (every path
 * absolute) and what this machine would enforce of it.
 */
export async function policyShowCommand(options: PolicyShowOptions): Promise<number> {
  const workspace = await resolveWorkspace(options.workspace);
  const policy = await resolvePolicy(options.policy, workspace);
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
  const report: PolicyReport = { policy, enforcement, resourceLimits, jsEval };
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return 0;
}

function formatReport({ policy, enforcement, resourceLimits, jsEval }: PolicyReport): string {
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
    `network           ${policy.network.mode}\n`,
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
