import type { ResolvedPolicy } from '../../shared/policy.js';
import type { ExecutorClient } from '../executor-client/executor-client.js';
import { type InstructionsFile, loadProjectInstructions } from '../instructions/load-project-instructions.js';
import { ensurePlanFile } from '../planning/plan-file.js';
import type { ModelProvider } from '../provider/model-provider.js';
import { AgentRuntimeError } from './agent-runtime-error.js';
import type { Activity, AgentSettings } from './agent-settings.js';
import { openSessionLog, type SessionLog } from './open-session-log.js';
import { resolvePolicy, resolveWorkspace, startExecutor } from './start-executor.js';

/** Where the executor's tools and the policy are, as the model is told. */
export interface ExecutorView {
  workspace: string;
  policyName: string;
}

/** What an agent starts with: everything `AgentSession` owns from then on. */
export interface StartedAgent {
  workspace: string;
  activity: Activity;
  executor: ExecutorClient;
  policy: ResolvedPolicy | undefined;
  view: ExecutorView;
  provider: ModelProvider;
  log: SessionLog;
  /** The project's instructions (AGENTS.md) for the system prompt: the main agent's, loaded here. */
  instructions: { text: string | undefined; files: InstructionsFile[] };
}

/**
 * Resolves the workspace once, prepares what the activity needs (planning:
 * the plan file, which the sandbox binds, and the `plan` policy), then starts
 * the executor, awaits the provider and opens the session log together. What
 * fails on the way leaves nothing running.
 */
export async function startAgent(settings: AgentSettings): Promise<StartedAgent> {
  const note = settings.onNote ?? (() => {});
  const workspace = await resolveWorkspace(settings.workspace);
  const activity = settings.activity ?? { kind: 'agent' };
  let executorSettings = settings.executor;
  if (activity.kind === 'plan') {
    if (executorSettings.kind === 'remote') {
      throw new AgentRuntimeError(
        'settings',
        'planning starts its own executor under the plan policy; it cannot use a remote executor',
      );
    }
    await ensurePlanFile(workspace).catch((error: Error) => {
      throw new AgentRuntimeError('plan', `cannot prepare the plan file: ${error.message}`);
    });
    executorSettings = { ...executorSettings, policy: await resolvePolicy('plan', workspace) };
  }
  // The main agent reads the project's AGENTS.md; a sub-agent gets its parent's in its system prompt.
  // Everything here overlaps the executor's start, which is the longest part: the provider warms
  // its HTTP client meanwhile, so the first request does not pay for loading it.
  // What only competes with starting the executor for this thread waits until its process runs
  // (or its start failed): then the provider loads and warms up while the executor boots.
  let spawned!: () => void;
  const executorSpawned = new Promise<void>((resolve) => (spawned = resolve));
  const starting = startExecutor(executorSettings, workspace, note, spawned);
  starting.catch(spawned);
  const { provider: makeProvider } = settings.model;
  const [started, provider, log, instructions] = await Promise.allSettled([
    starting,
    typeof makeProvider === 'function'
      ? executorSpawned.then(makeProvider).then(warmed)
      : executorSpawned.then(() => makeProvider).then(warmed),
    openSessionLog(settings.session, {
      workspace,
      model: settings.model.name,
      policy: policyLabel(settings, activity),
      note,
    }),
    (settings.agent?.length ?? 0) === 0
      ? loadProjectInstructions({ workspace })
      : { text: undefined, files: [] as InstructionsFile[] },
  ]);
  if (
    started.status === 'rejected' ||
    provider.status === 'rejected' ||
    log.status === 'rejected' ||
    instructions.status === 'rejected'
  ) {
    if (started.status === 'fulfilled') await started.value.executor.shutdown().catch(() => undefined);
    if (log.status === 'fulfilled') await log.value.close();
    const failed = [started, provider, log, instructions].find((result) => result.status === 'rejected');
    throw (failed as PromiseRejectedResult).reason;
  }
  const { executor, policy } = started.value;
  try {
    // A remote executor's workspace and policy are its server's: ask it once.
    const view: ExecutorView = policy
      ? { workspace: policy.workspace, policyName: policy.name }
      : await executor
          .health()
          .then((health) => ({ workspace: health.workspace, policyName: health.policy }));
    return {
      workspace,
      activity,
      executor,
      policy,
      view,
      provider: provider.value,
      log: log.value,
      instructions: instructions.value,
    };
  } catch (error) {
    await executor.shutdown().catch(() => undefined);
    await log.value.close();
    throw error;
  }
}

/** The policy as the session header names it: the name or file given, `plan` when planning. */
function policyLabel(settings: AgentSettings, activity: Activity): string {
  if (activity.kind === 'plan') return 'plan';
  const { executor } = settings;
  if (executor.kind === 'remote') return 'remote';
  return typeof executor.policy === 'string' ? executor.policy : executor.policy.name;
}

/** The provider once it has warmed up; a failed warm-up is no failure (the first request just pays for it). */
async function warmed(provider: ModelProvider): Promise<ModelProvider> {
  await provider.warm?.().catch(() => undefined);
  return provider;
}
