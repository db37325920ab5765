import { realpath, stat } from 'node:fs/promises';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { applyRunOverrides } from '../../shared/run-overrides.js';
import { ExecutorClient } from '../executor-client/executor-client.js';
import { formatPolicyProblem, loadPolicy } from '../policy/load-policy.js';
import { launcherFor, type SandboxMode } from '../sandbox/choose-launcher.js';
import { note } from './note.js';
import { createSandboxNotes } from './sandbox-notes.js';
import { UsageError } from './usage-error.js';

export interface ExecutorOptions {
  policy: string;
  workspace: string;
  /** `ws://host:port` of a remote executor; the token comes from SKATE_EXECUTOR_TOKEN. */
  executor?: string | undefined;
  diagnosticTools?: boolean;
  verbose?: boolean;
  sandbox: SandboxMode;
  /** Turns the policy's network on or off for this run (`--network`, or settings). */
  network?: 'on' | 'off' | undefined;
  /** More writable roots for this run (`--add-dir`), sandboxed like the workspace. */
  addDirs?: readonly string[] | undefined;
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

/**
 * Loads and resolves a policy for the CLI; an invalid one is a usage error naming the field.
 * `--network` and `--add-dir` change it for this run only (the file is untouched).
 */
export async function resolveCliPolicy(
  name: string,
  workspace: string,
  overrides: Pick<ExecutorOptions, 'network' | 'addDirs'> = {},
): Promise<ResolvedPolicy> {
  const loaded = await loadPolicy(name, { workspace });
  if (!loaded.ok) throw new UsageError(formatPolicyProblem(loaded.problem));
  const addDirs: string[] = [];
  for (const dir of overrides.addDirs ?? []) {
    let real: string;
    try {
      real = await realpath(dir);
    } catch {
      throw new UsageError(`--add-dir ${dir}: no such directory`);
    }
    if (!(await stat(real)).isDirectory()) throw new UsageError(`--add-dir ${dir}: not a directory`);
    if (real === '/')
      throw new UsageError('--add-dir / would make everything writable; use --policy full for that');
    addDirs.push(real);
  }
  return applyRunOverrides(loaded.policy, { network: overrides.network, addDirs });
}

/** Starts a local executor for the options, or connects to the remote one they name. */
export async function openExecutor(options: ExecutorOptions): Promise<ExecutorClient> {
  if (options.executor) {
    const token = process.env.SKATE_EXECUTOR_TOKEN;
    if (!token) throw new UsageError('--executor needs the token in SKATE_EXECUTOR_TOKEN');
    if (options.network || options.addDirs?.length) {
      throw new UsageError(
        `${options.network ? '--network' : '--add-dir'} cannot change a remote executor's policy; its server chose it (skate executor serve --policy)`,
      );
    }
    return ExecutorClient.connect(options.executor, { token });
  }
  const workspace = await resolveWorkspace(options.workspace);
  const policy = await resolveCliPolicy(options.policy, workspace, options);
  return ExecutorClient.spawn({
    policy,
    launcher: await launcherFor(
      policy,
      options.sandbox,
      createSandboxNotes({ verbose: options.verbose ?? false, write: note }),
    ),
    diagnosticTools: options.diagnosticTools ?? false,
    ...(options.verbose && { onLog: (line: string) => process.stderr.write(`[executor] ${line}\n`) }),
  });
}
