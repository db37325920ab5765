import { parseArgs } from 'node:util';
import { formatPolicyReport, policyReport } from '../../policy/policy-report.js';
import { resolvePolicy, resolveWorkspace } from '../../runtime/start-executor.js';
import { inertText, jsonFor } from '../../terminal/inert-text.js';
import { COMMON, type CommandMain, parsed, WORKSPACE_JSON } from '../cli-flags.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

export interface PolicyShowOptions {
  policy: string;
  workspace: string;
  json: boolean;
}

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
  const report = await policyReport(policy);
  // Paths name what a workspace holds (a sandbox can name files): shown inert.
  process.stdout.write(
    options.json ? `${jsonFor(process.stdout, report, 2)}\n` : inertText(formatPolicyReport(report)),
  );
  return 0;
}
