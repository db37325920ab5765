import type { ResolvedPolicy } from '../../shared/policy.js';
import type { ExecutorClient } from '../executor-client/executor-client.js';
import type { InstructionsFile } from '../instructions/load-project-instructions.js';
import { NetworkGate } from '../network/network-gate.js';
import type { ModelProvider } from '../provider/model-provider.js';
import { ensureSkateDir } from '../skate-dir.js';
import { traceStart } from '../start-trace.js';
import { AgentRuntimeError } from './agent-runtime-error.js';
import type { Activity, AgentSettings } from './agent-settings.js';
import type { SessionLog } from './open-session-log.js';
import {
  readPolicyFor,
  resolvePolicy,
  resolveWorkspace,
  type StartedExecutor,
  startExecutor,
} from './start-executor.js';

/** Where the executor's tools and the policy are, as the model is told. */
export interface ExecutorView {
  workspace: string;
  policyName: string;
}

/** What of an agent's settings its start uses. */
export type StartSettings = Pick<
  AgentSettings,
  'workspace' | 'executor' | 'activity' | 'model' | 'session' | 'agent' | 'onNote'
>;

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
  /** This agent's own network gate (a local executor's; never shared with a parent or child). */
  networkGate?: NetworkGate;
}

/**
 * Resolves the workspace once, prepares what the activity needs (planning: the
 * `plan` policy, whose sandbox makes the plan file it binds), then starts
 * the executor, awaits the provider and opens the session log together. What
 * fails on the way leaves nothing running. `onExecutorSpawned` is called once
 * the executor's process runs (or its start failed): what the caller loads
 * then overlaps the executor's boot instead of delaying its spawn.
 */
export async function startAgent(
  settings: StartSettings,
  onExecutorSpawned?: () => void,
): Promise<StartedAgent> {
  const note = settings.onNote ?? (() => {});
  traceStart('agent: start');
  const workspace = await resolveWorkspace(settings.workspace);
  // The workspace is what a policy makes writable and where `.skate` is made: never all of the filesystem
  // (an editor's `cwd: "/"` over ACP, `--workspace /`). The home directory is a workspace like any other,
  // its Skate configuration protected by the policies.
  if (workspace === '/') {
    throw new AgentRuntimeError(
      'workspace',
      'the workspace cannot be / (the whole filesystem would be writable): choose a project directory',
    );
  }
  const activity = settings.activity ?? { kind: 'agent' };
  // A gate of this agent's own: settings copied from a parent must not carry (and change) its list.
  const networkGate = settings.executor.kind === 'local' ? new NetworkGate() : undefined;
  let executorSettings: typeof settings.executor =
    settings.executor.kind === 'local' ? { ...settings.executor, networkGate } : settings.executor;
  if (activity.kind === 'plan') {
    if (executorSettings.kind === 'remote') {
      throw new AgentRuntimeError(
        'settings',
        'planning starts its own executor under the plan policy; it cannot use a remote executor',
      );
    }
    executorSettings = { ...executorSettings, policy: await resolvePolicy('plan', workspace) };
  }
  // `.skate` is protected: made now, before the sandbox is planned, it is mounted read-only. Made
  // only by the session log, after the spawn, it would be left writable to the executor's commands.
  // (A failure here is the session log's to report.)
  if (settings.session.kind === 'new') await ensureSkateDir(workspace).catch(() => undefined);
  // What only competes with starting the executor for this thread (the provider, the session log,
  // the project's AGENTS.md, and their modules) waits until its process runs (or its start
  // failed): nothing but the executor's own start precedes its spawn, and the rest overlaps its boot.
  // A sub-agent gets its parent's AGENTS.md in its system prompt.
  let spawned!: () => void;
  const executorSpawned = new Promise<void>((resolve) => (spawned = resolve)).then(() => {
    traceStart('executor: spawned');
    onExecutorSpawned?.();
  });
  // The main agent's first request need not wait for its executor when the tools it will list are
  // known from its last start: the request goes out as soon as the harness is ready and overlaps the
  // executor's boot. Sub-agents wait: they start in bursts, where no core is idle to overlap with.
  const early = executorSettings.kind === 'local' && (settings.agent?.length ?? 0) === 0;
  // What the harness reads for the agent (its AGENTS.md) is read as the executor's policy allows.
  let policyKnown!: (policy: ResolvedPolicy | undefined) => void;
  const enforced = new Promise<ResolvedPolicy | undefined>((resolve) => (policyKnown = resolve));
  const starting = startExecutor(executorSettings, workspace, note, {
    onSpawned: spawned,
    early,
    onPolicy: policyKnown,
  });
  starting.catch(() => {
    policyKnown(undefined);
    spawned();
  });
  const executorReady = starting.then((started) => started.ready);
  // A start that failed before the agent is ready fails the agent's start, as a spawn failure does.
  let failedToStart: { reason: unknown } | undefined;
  executorReady.catch((reason: unknown) => {
    failedToStart = { reason };
  });
  const { provider: makeProvider } = settings.model;
  const [provider, log, instructions] = await Promise.allSettled([
    executorSpawned.then(typeof makeProvider === 'function' ? makeProvider : () => makeProvider),
    executorSpawned
      .then(() => import('./open-session-log.js'))
      .then(({ openSessionLog }) =>
        openSessionLog(settings.session, {
          workspace,
          model: settings.model.name,
          policy: policyLabel(settings, activity),
          note,
        }),
      ),
    (settings.agent?.length ?? 0) === 0
      ? executorSpawned.then(() =>
          loadInstructions(
            workspace,
            enforced.then((policy) => policy ?? readPolicyFor(executorSettings, workspace)),
            note,
          ),
        )
      : { text: undefined, files: [] as InstructionsFile[] },
  ]);
  traceStart('agent: provider, session log and instructions ready');
  // Then, while the executor still boots, the provider warms up its HTTP client; once the executor
  // is ready the first request goes ahead (and pays for what of the warm-up is left, if any).
  if (provider.status === 'fulfilled') {
    await Promise.race([executorReady.catch(() => undefined), warm(provider.value)]);
  }
  const [launched] = await Promise.allSettled([starting]);
  const started: PromiseSettledResult<StartedExecutor> =
    launched.status === 'fulfilled' && failedToStart
      ? { status: 'rejected', reason: failedToStart.reason }
      : launched;
  traceStart('agent: started');
  if (
    started.status === 'rejected' ||
    provider.status === 'rejected' ||
    log.status === 'rejected' ||
    instructions.status === 'rejected'
  ) {
    if (launched.status === 'fulfilled') await launched.value.executor.shutdown().catch(() => undefined);
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
      ...(networkGate && { networkGate }),
    };
  } catch (error) {
    await executor.shutdown().catch(() => undefined);
    await log.value.close();
    throw error;
  }
}

/** The policy as the session header names it: the name or file given, `plan` when planning. */
function policyLabel(settings: StartSettings, activity: Activity): string {
  if (activity.kind === 'plan') return 'plan';
  const { executor } = settings;
  if (executor.kind === 'remote') return 'remote';
  return typeof executor.policy === 'string' ? executor.policy : executor.policy.name;
}

/**
 * The main agent's AGENTS.md files, read as its executor's policy allows (`readPolicyFor`). A file
 * left out is said, whether or not `--verbose`: the user may expect it in the prompt.
 */
async function loadInstructions(
  workspace: string,
  enforced: Promise<ResolvedPolicy>,
  note: (line: string) => void,
): Promise<StartedAgent['instructions']> {
  const policy = await enforced;
  const { loadProjectInstructions, describeRefusedInstructions } = await import(
    '../instructions/load-project-instructions.js'
  );
  const loaded = await loadProjectInstructions({ workspace, policy });
  for (const refused of loaded.refused) note(describeRefusedInstructions(refused));
  return loaded;
}

/** Warms the provider up; a failed warm-up is no failure (the first request just pays for it). */
async function warm(provider: ModelProvider): Promise<void> {
  await provider.warm?.().catch(() => undefined);
  traceStart('provider: warmed');
}
