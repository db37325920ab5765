import { realpath, stat } from 'node:fs/promises';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { ExecutorClient } from '../executor-client/executor-client.js';
import { formatPolicyProblem, loadPolicy } from '../policy/load-policy.js';
import { launcherFor, type SandboxMode } from '../sandbox/choose-launcher.js';
import { note } from './note.js';
import { UsageError } from './usage-error.js';

export interface ExecutorOptions {
  policy: string;
  workspace: string;
  /** `ws://host:port` of a remote executor; the token comes from SKATE_EXECUTOR_TOKEN. */
  executor?: string | undefined;
  diagnosticTools?: boolean;
  verbose?: boolean;
  sandbox: SandboxMode;
}

/** The workspace as a real, existing directory, or a usage error saying what is wrong. */
export async function resolveWorkspace(dir: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(dir);
  } catch {
    throw new UsageError(`workspace ${dir} does not exist`);
  }
  if (!(await stat(real)).isDirectory()) throw new UsageError(`workspace ${dir} is not a directory`);
  return real;
}

/** Loads and resolves a policy for the CLI; an invalid one is a usage error naming the field. */
export async function resolveCliPolicy(name: string, workspace: string): Promise<ResolvedPolicy> {
  const loaded = await loadPolicy(name, { workspace });
  if (!loaded.ok) throw new UsageError(formatPolicyProblem(loaded.problem));
  return loaded.policy;
}

/** Starts a local executor for the options, or connects to the remote one they name. */
export async function openExecutor(options: ExecutorOptions): Promise<ExecutorClient> {
  if (options.executor) {
    const token = process.env.SKATE_EXECUTOR_TOKEN;
    if (!token) throw new UsageError('--executor needs the token in SKATE_EXECUTOR_TOKEN');
    return ExecutorClient.connect(options.executor, { token });
  }
  const workspace = await resolveWorkspace(options.workspace);
  const policy = await resolveCliPolicy(options.policy, workspace);
  return ExecutorClient.spawn({
    policy,
    launcher: await launcherFor(policy, options.sandbox, {
      onWarning: note,
      ...(options.verbose && { onNote: note }),
    }),
    diagnosticTools: options.diagnosticTools ?? false,
    ...(options.verbose && { onLog: (line: string) => process.stderr.write(`[executor] ${line}\n`) }),
  });
}
