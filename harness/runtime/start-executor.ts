import { realpath, stat } from 'node:fs/promises';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { applyRunOverrides } from '../../shared/run-overrides.js';
import type { ToolDefinition } from '../../shared/tool.js';
import { ExecutorClient, type LaunchedExecutor } from '../executor-client/executor-client.js';
import { toolMemory } from '../executor-client/tool-memory.js';
import { formatPolicyProblem, loadPolicy } from '../policy/load-policy.js';
import { launcherFor } from '../sandbox/choose-launcher.js';
import { traceStart } from '../start-trace.js';
import { AgentRuntimeError } from './agent-runtime-error.js';
import type { ExecutorSettings } from './agent-settings.js';

/** An executor, with the policy it enforces when that is known here (not for a remote one). */
export interface StartedExecutor {
  executor: ExecutorClient;
  policy: ResolvedPolicy | undefined;
  /** Settles once the executor is ready (already, unless it was started `early`); rejects if it failed to. */
  ready: Promise<void>;
}

export interface StartExecutorOptions {
  /** Called once the process runs (for a remote executor, at once), before it is ready. */
  onSpawned?: () => void;
  /**
   * Return before the executor is ready when the tools it will list are known from its last start
   * under the same policy, build and Node (`toolMemory`): a model can be asked meanwhile.
   */
  early?: boolean;
  /** Called with the policy as it will be enforced (undefined for a remote executor) before the spawn. */
  onPolicy?: (policy: ResolvedPolicy | undefined) => void;
}

/** What a local executor's spawn may be told besides its settings and policy. */
export interface SpawnExecutorOptions {
  /** A line for the person (an executor that stopped unexpectedly and is started again). */
  onNote?: (line: string) => void;
  /** Called once the process runs, before it is ready. */
  onSpawned?: () => void;
  /**
   * Abandons the start: the executor is killed and the promise rejects (an MCP server retried in
   * the background must not keep a finished run waiting for its start timeout).
   */
  signal?: AbortSignal;
}

/** The workspace as a real, existing directory. */
export async function resolveWorkspace(dir: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(dir);
  } catch {
    throw new AgentRuntimeError('workspace', `workspace ${dir} does not exist`);
  }
  if (!(await stat(real)).isDirectory())
    throw new AgentRuntimeError('workspace', `workspace ${dir} is not a directory`);
  return real;
}

/** Loads and resolves a policy for a workspace; an invalid one is an error naming the field. */
export async function resolvePolicy(name: string, workspace: string): Promise<ResolvedPolicy> {
  const loaded = await loadPolicy(name, { workspace });
  if (!loaded.ok) throw new AgentRuntimeError('policy', formatPolicyProblem(loaded.problem));
  return loaded.policy;
}

/**
 * The one way an executor is started: spawned under its policy in the sandbox
 * `launcherFor` chooses, or connected to a remote one. `workspace` is already
 * resolved.
 */
export async function startExecutor(
  settings: ExecutorSettings,
  workspace: string,
  onNote?: (line: string) => void,
  options: StartExecutorOptions = {},
): Promise<StartedExecutor> {
  const { onSpawned } = options;
  if (settings.kind === 'remote') {
    options.onPolicy?.(undefined);
    onSpawned?.();
    return {
      executor: await ExecutorClient.connect(settings.url, { token: settings.token }),
      policy: undefined,
      ready: Promise.resolve(),
    };
  }
  const policy = await executorPolicy(settings, workspace);
  traceStart('executor: policy resolved');
  options.onPolicy?.(policy);
  if (!options.early) {
    return {
      executor: await spawnExecutor(settings, policy, { onNote, onSpawned }),
      policy,
      ready: Promise.resolve(),
    };
  }
  const memory = toolMemory({ policy, diagnosticTools: settings.diagnosticTools ?? false });
  const { client, ready, recalled } = await launchExecutor(settings, policy, {
    onNote,
    onSpawned,
    expectedTools: memory.recall(),
  });
  const listed = ready.then((tools) => {
    void memory.remember(tools);
  });
  if (!recalled) await listed;
  return { executor: client, policy, ready: listed };
}

/**
 * The policy a local executor is started under: its settings' policy resolved for the workspace,
 * with this run's `network` and `addDirs`. What the harness reads for an agent before its executor
 * runs (the plan it carries out) is read as this policy allows.
 */
export async function executorPolicy(
  settings: Pick<Extract<ExecutorSettings, { kind: 'local' }>, 'policy' | 'network' | 'addDirs'>,
  workspace: string,
): Promise<ResolvedPolicy> {
  const resolved =
    typeof settings.policy === 'string' ? await resolvePolicy(settings.policy, workspace) : settings.policy;
  return withRunOverrides(resolved, settings);
}

/**
 * The policy what the harness reads on an agent's behalf (its AGENTS.md, the plan it carries out)
 * is read under: its executor's. A remote executor's policy is its server's, unknown here, so the
 * local workspace's files are read as the default policy, `execute`, allows.
 */
export async function readPolicyFor(settings: ExecutorSettings, workspace: string): Promise<ResolvedPolicy> {
  return settings.kind === 'local'
    ? executorPolicy(settings, workspace)
    : resolvePolicy(DEFAULT_READ_POLICY, workspace);
}

const DEFAULT_READ_POLICY = 'execute';

/** The policy with this run's `network` and `addDirs` (real, existing directories; never `/`). */
async function withRunOverrides(
  policy: ResolvedPolicy,
  settings: Pick<Extract<ExecutorSettings, { kind: 'local' }>, 'network' | 'addDirs'>,
): Promise<ResolvedPolicy> {
  if (!settings.network && !settings.addDirs?.length) return policy;
  const addDirs: string[] = [];
  for (const dir of settings.addDirs ?? []) {
    let real: string;
    try {
      real = await realpath(dir);
    } catch {
      throw new AgentRuntimeError('policy', `--add-dir ${dir}: no such directory`);
    }
    if (!(await stat(real)).isDirectory())
      throw new AgentRuntimeError('policy', `--add-dir ${dir}: not a directory`);
    if (real === '/')
      throw new AgentRuntimeError(
        'policy',
        '--add-dir / would make everything writable; use --policy full for that',
      );
    addDirs.push(real);
  }
  return applyRunOverrides(policy, { network: settings.network, addDirs });
}

/**
 * Spawns a local executor under `policy` (which may differ from the settings' own: a network switch)
 * and returns once it is ready.
 */
export async function spawnExecutor(
  settings: Extract<ExecutorSettings, { kind: 'local' }>,
  policy: ResolvedPolicy,
  options: SpawnExecutorOptions = {},
): Promise<ExecutorClient> {
  const { signal } = options;
  signal?.throwIfAborted();
  const { client, ready } = await launchExecutor(settings, policy, options);
  const abandon = (): void => client.kill();
  signal?.addEventListener('abort', abandon, { once: true });
  if (signal?.aborted) client.kill();
  // One that failed to list its tools (an MCP server that did not start) must not be left running.
  await ready
    .catch((error: unknown) => {
      client.kill();
      throw error;
    })
    .finally(() => signal?.removeEventListener('abort', abandon));
  if (signal?.aborted) {
    client.kill();
    signal.throwIfAborted();
  }
  return client;
}

/**
 * Spawns a local executor and returns once it runs; the tools recalled (if any) stand in for its
 * list until it is ready.
 */
async function launchExecutor(
  settings: Extract<ExecutorSettings, { kind: 'local' }>,
  policy: ResolvedPolicy,
  options: Pick<SpawnExecutorOptions, 'onNote' | 'onSpawned'> & {
    expectedTools?: Promise<ToolDefinition[] | undefined>;
  },
): Promise<LaunchedExecutor & { recalled: boolean }> {
  const { onNote, onSpawned, expectedTools } = options;
  const launcher = await launcherFor(policy, settings.sandbox, {
    ...(settings.onSandboxNote && { onNote: settings.onSandboxNote }),
    ...(settings.onSandboxWarning && { onWarning: settings.onSandboxWarning }),
    ...(settings.networkGate && { network: { gate: settings.networkGate } }),
  });
  traceStart('executor: launcher chosen (probe)');
  const expected = await expectedTools;
  const launched = await ExecutorClient.launch({
    policy,
    launcher,
    diagnosticTools: settings.diagnosticTools ?? false,
    ...(settings.onLog && { onLog: settings.onLog }),
    ...(settings.restartsOnExit && { restartsOnExit: settings.restartsOnExit }),
    ...(onSpawned && { onSpawned }),
    ...(expected && { expectedTools: expected }),
    ...(settings.mcpServer && { mcpServer: settings.mcpServer }),
    ...(settings.startupTimeoutMs && { startupTimeoutMs: settings.startupTimeoutMs }),
  });
  if (expected) traceStart('executor: tools recalled from its last start');
  void launched.ready.then(() => traceStart('executor: ready (tools listed)')).catch(() => undefined);
  if (settings.restartsOnExit) {
    launched.client.onExit((exit, expected) => {
      if (!expected)
        onNote?.(`the executor stopped unexpectedly (${exit.reason.split('\n')[0]}); starting a new one`);
    });
  }
  return { ...launched, recalled: expected !== undefined };
}
