import type { ResolvedPolicy } from '../../shared/policy.js';
import { ExecutorClient } from '../executor-client/executor-client.js';
import { launcherFor } from '../sandbox/choose-launcher.js';
import { note } from './note.js';
import { type ExecutorOptions, openExecutor, resolveCliPolicy, resolveWorkspace } from './open-executor.js';

/** An agent's executor, with the policy it was started under when that is known here. */
export interface AgentExecutor {
  executor: ExecutorClient;
  /**
   * The resolved policy the executor enforces, resolved once: sub-agents
   * narrow exactly this. Undefined for a remote executor, whose server chose it.
   */
  policy: ResolvedPolicy | undefined;
}

/**
 * Like `openExecutor`, but keeps the resolved policy, and lets the caller
 * prepare the workspace on the host before the executor starts (planning
 * creates `.skate/plan.md`, which the sandbox must find to bind it).
 */
export async function openAgentExecutor(
  options: ExecutorOptions,
  prepare?: (workspace: string) => Promise<void>,
): Promise<AgentExecutor> {
  if (options.executor) return { executor: await openExecutor(options), policy: undefined };
  const workspace = await resolveWorkspace(options.workspace);
  await prepare?.(workspace);
  const policy = await resolveCliPolicy(options.policy, workspace);
  const executor = await ExecutorClient.spawn({
    policy,
    launcher: await launcherFor(policy, options.sandbox, {
      onWarning: note,
      ...(options.verbose && { onNote: note }),
    }),
    diagnosticTools: options.diagnosticTools ?? false,
    ...(options.verbose && { onLog: (line: string) => process.stderr.write(`[executor] ${line}\n`) }),
    // A crashed executor loses the call it was running, not the session: later calls get a new one.
    restartsOnExit: 3,
  });
  executor.onExit((exit, expected) => {
    if (!expected)
      note(`the executor stopped unexpectedly (${exit.reason.split('\n')[0]}); starting a new one`);
  });
  return { executor, policy };
}
