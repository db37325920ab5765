import type { EngineEvent } from '../../shared/engine-events.js';
import type { ExecutorHealth } from '../../shared/executor-boot.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { ExecutorClient } from '../executor-client/executor-client.js';
import type { AgentSettings, ExecutorSettings } from './agent-settings.js';
import type { ExecutorRole } from './executor-registry.js';
import { spawnExecutor } from './start-executor.js';
import { type ExecutorTracking, trackExecutor } from './track-executor.js';

/**
 * An agent's one executor at a time: the client, the policy it runs under and its row in the
 * settings' registry, kept in step as a network switch replaces it and as the agent closes, so
 * the settings' start/stop callbacks and the executor panel see every change exactly once.
 */
export class SessionExecutor {
  private current: ExecutorClient;
  private currentPolicy: ResolvedPolicy | undefined;
  private readonly tracking: ExecutorTracking | undefined;

  /** Tells the settings (`onExecutorStarted`, `executors`) of the agent's first executor. */
  constructor(
    private readonly settings: AgentSettings,
    executor: ExecutorClient,
    policy: ResolvedPolicy | undefined,
  ) {
    this.current = executor;
    this.currentPolicy = policy;
    settings.onExecutorStarted?.(executor, policy);
    this.tracking =
      settings.executors && trackExecutor(settings.executors, executorRole(settings), executor, policy);
  }

  get client(): ExecutorClient {
    return this.current;
  }

  /** Undefined for a remote executor, whose server chose it. */
  get policy(): ResolvedPolicy | undefined {
    return this.currentPolicy;
  }

  /** An event of the agent, for its registry row; `servedHere` says whether a tool runs on the executor. */
  observe(event: EngineEvent, servedHere: (tool: string) => boolean): void {
    this.tracking?.observe(event, servedHere);
  }

  /** The policy changed in place (an allowlist's list, which the proxy enforces): the executor stays. */
  changePolicy(policy: ResolvedPolicy): void {
    this.currentPolicy = policy;
    this.tracking?.policy(policy);
  }

  /** Starts an executor under `policy`, then stops the old one; when the start fails, the old one stays. */
  async replace(local: Extract<ExecutorSettings, { kind: 'local' }>, policy: ResolvedPolicy): Promise<void> {
    const old = this.current;
    const oldPolicy = this.currentPolicy;
    this.tracking?.restarting();
    let replacement: ExecutorClient;
    try {
      replacement = await spawnExecutor(local, policy, { onNote: this.settings.onNote });
    } catch (error) {
      this.tracking?.replaced(undefined, undefined);
      throw error;
    }
    this.current = replacement;
    this.currentPolicy = policy;
    await this.stopClient(old, oldPolicy);
    this.tracking?.replaced(replacement, policy);
    this.settings.onExecutorStarted?.(replacement, policy);
  }

  /** See `AgentSession.executorSummary`. */
  async summary(): Promise<Pick<ExecutorHealth, 'policy' | 'enforcement' | 'workspace'>> {
    const policy = this.currentPolicy;
    if (policy) {
      return { policy: policy.name, enforcement: this.current.enforcement, workspace: policy.workspace };
    }
    const { policy: name, enforcement, workspace } = await this.current.health();
    return { policy: name, enforcement, workspace };
  }

  /** Shuts the executor down (killed when it does not go) and marks its row stopped. */
  async stop(): Promise<void> {
    await this.stopClient(this.current, this.currentPolicy);
    this.tracking?.stopped();
  }

  private async stopClient(executor: ExecutorClient, policy: ResolvedPolicy | undefined): Promise<void> {
    await executor.shutdown().catch(() => executor.kill());
    this.settings.onExecutorStopped?.(executor, policy);
  }
}

/** How the executor panel names an agent's executor. */
function executorRole(settings: AgentSettings): { role: ExecutorRole; name: string } {
  const path = settings.agent ?? [];
  if (path.length > 0) return { role: 'sub-agent', name: path.join('/') };
  const kind = settings.activity?.kind ?? 'agent';
  return kind === 'agent' ? { role: 'main', name: 'main' } : { role: kind, name: kind };
}
