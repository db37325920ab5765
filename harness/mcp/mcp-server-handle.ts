import path from 'node:path';
import { MCP_UNAUTHORIZED_MARK } from '../../shared/mcp-oauth.js';
import { isMcpPromptTool } from '../../shared/mcp-prompts.js';
import { isMcpResourceTool, MCP_LIST_RESOURCES } from '../../shared/mcp-resource-tools.js';
import {
  isHttpServer,
  type McpBootServer,
  type McpHttpServer,
  type McpServerConfig,
  remoteServerPattern,
} from '../../shared/mcp-servers.js';
import { MCP_TOOLS_CHANGED_STREAM } from '../../shared/mcp-tools-changed.js';
import { narrowPolicy } from '../../shared/narrow-policy.js';
import { compileAllowlist, judgeHost } from '../../shared/network-allowlist.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { OutputLine, ToolDefinition, ToolResult } from '../../shared/tool.js';
import type { ExecutorClient } from '../executor-client/executor-client.js';
import { loginNeededResult, withLoginHint } from '../mcp-oauth/refused-credentials.js';
import type { ExecutorRegistry } from '../runtime/executor-registry.js';
import { type ExecutorTracking, trackExecutor } from '../runtime/track-executor.js';
import type { SandboxMode } from '../sandbox/choose-launcher.js';
import { withholdValue, withoutHarnessSecrets } from '../sandbox/executor-env.js';
import { type ManifestMemory, type McpStartFailure, manifestMemory } from './mcp-manifest-memory.js';

/** Where a server is: configured → manifest known → started → stopped (when idle), or failed to start. */
export type McpServerState =
  | { status: 'configured' }
  | { status: 'known'; tools: number }
  | { status: 'starting' }
  | { status: 'running'; tools: number; pid?: number }
  | { status: 'failed'; reason: string; at: string };

export interface McpServerHandleOptions {
  name: string;
  config: McpServerConfig;
  /** The real workspace: relative write paths are resolved against it. */
  workspace: string;
  sandbox: SandboxMode;
  /** The agent's policy; the server's is narrowed from it, never wider. */
  agentPolicy: () => Promise<ResolvedPolicy>;
  idleMs: number;
  startTimeoutMs: number;
  onLog?: ((line: string) => void) | undefined;
  /** Its tools changed while it ran (it announced `tools/list_changed`, or listed others than remembered). */
  onToolsChanged?: (() => void) | undefined;
}

/**
 * One server: an executor of its own, under a policy narrowed from the agent's (default: read as
 * the agent reads, write nothing, network off), which runs a stdio server as its child or connects
 * to a remote one (its network then the URL's host and port alone, through the allowlist proxy).
 * Started at the first call (or to learn the tools when none are remembered), stopped when idle.
 */
export class McpServerHandle {
  readonly name: string;
  private tools: ToolDefinition[] | undefined;
  private executor: Promise<ExecutorClient> | undefined;
  private client: ExecutorClient | undefined;
  private failed: { reason: string; at: string } | undefined;
  /** Abandons the start under way (`stop()`): a background retry must not outlive the run. */
  private startAbort: AbortController | undefined;
  private running = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  /** When a call last ended (or the tools were listed): the idle stop counts from it. */
  private lastUse = 0;
  private readonly boot: McpBootServer;
  private registry: ExecutorRegistry | undefined;
  /** The policy its executor runs under, once started. */
  private serverPolicy: ResolvedPolicy | undefined;
  private tracking: ExecutorTracking | undefined;
  /** The listing after the server's last announced change, while it is fetched. */
  private refreshing: Promise<void> | undefined;

  constructor(private readonly options: McpServerHandleOptions) {
    this.name = options.name;
    const { config } = options;
    if (isHttpServer(config)) {
      const headers = withoutHarnessSecrets(config.headers ?? {});
      // A header's value (or the credential after its scheme) reaches no other sandbox's environment.
      for (const value of Object.values(headers)) {
        withholdValue(value);
        const credential = /^\S+\s+(\S+)$/.exec(value)?.[1];
        if (credential) withholdValue(credential);
      }
      this.boot = {
        type: config.type,
        name: options.name,
        url: config.url,
        headers,
        startTimeoutMs: options.startTimeoutMs,
      };
    } else {
      this.boot = {
        name: options.name,
        command: config.command,
        args: config.args ?? [],
        env: withoutHarnessSecrets(config.env ?? {}),
        startTimeoutMs: options.startTimeoutMs,
      };
    }
  }

  private memory() {
    return serverManifest(this.name, this.options.config);
  }

  /** The tools remembered from its last start; undefined when it has to be started to list them. */
  async recall(): Promise<ToolDefinition[] | undefined> {
    this.tools ??= await this.memory().recall();
    return this.tools;
  }

  /**
   * The failure of its last start when that, not a manifest, is remembered (see `ManifestMemory`):
   * its state says failed, why and when, until a start succeeds.
   */
  async recallFailure(): Promise<McpStartFailure | undefined> {
    const failure = await this.memory().recallFailure();
    if (failure && !this.executor) this.failed = failure;
    return failure;
  }

  /** Starts it to list its tools (and keeps it running until idle); rejects naming the server. */
  async discover(): Promise<ToolDefinition[]> {
    await this.started();
    this.scheduleIdleStop();
    return this.tools ?? [];
  }

  /** Its tools as known now (remembered or listed). */
  knownTools(): ToolDefinition[] {
    return (this.tools ?? []).filter((tool) => !isMcpResourceTool(tool.name) && !isMcpPromptTool(tool.name));
  }

  /** Its prompts' reserved tools (see `shared/mcp-prompts.ts`), as its executor last listed, or remembered. */
  promptTools(): ToolDefinition[] {
    return (this.tools ?? []).filter((tool) => isMcpPromptTool(tool.name));
  }

  /** Its configuration (expanded) when it is a remote server: what its login is kept under. */
  remote(): McpHttpServer | undefined {
    return isHttpServer(this.options.config) ? this.options.config : undefined;
  }

  /** Whether the server declares resources (as its executor last listed, or remembered). */
  hasResources(): boolean {
    return (this.tools ?? []).some((tool) => tool.name === MCP_LIST_RESOURCES);
  }

  state(): McpServerState {
    if (this.failed !== undefined) return { status: 'failed', ...this.failed };
    if (this.executor)
      return this.tools ? { status: 'running', tools: this.knownTools().length } : { status: 'starting' };
    return this.tools ? { status: 'known', tools: this.knownTools().length } : { status: 'configured' };
  }

  /** One call; every failure (a start that failed or timed out, a server that died) is a result naming the server. */
  async call(
    tool: string,
    input: unknown,
    signal: AbortSignal,
    onOutput?: (line: OutputLine) => void,
  ): Promise<ToolResult> {
    const result = await this.callOnce(tool, input, signal, onOutput);
    const { config } = this.options;
    if (!isHttpServer(config) || result.code !== 'unauthorized' || signal.aborted) return result;
    // Its token was refused mid-session (HTTP 401): refreshed in the harness, then once, a new executor with it and the call again.
    const { renewAfterRejection } = await import('../mcp-oauth/server-authorization.js');
    if (await renewAfterRejection(this.name, config)) {
      await this.stop();
      const again = await this.callOnce(tool, input, signal, onOutput);
      if (again.code !== 'unauthorized') return again;
    }
    return loginNeededResult(this.name);
  }

  private async callOnce(
    tool: string,
    input: unknown,
    signal: AbortSignal,
    onOutput: ((line: OutputLine) => void) | undefined,
  ): Promise<ToolResult> {
    this.running++;
    try {
      let executor: ExecutorClient;
      try {
        executor = await this.started();
      } catch (error) {
        return {
          output: `The MCP server "${this.name}" could not be started: ${(error as Error).message}`,
          isError: true,
          code: 'unavailable',
        };
      }
      const result = await executor.callTool(tool, input, { signal, ...(onOutput && { onOutput }) });
      // A change of its tools this call made is known before the model is asked again.
      if (this.refreshing) await this.refreshing;
      return result;
    } catch (error) {
      if (signal.aborted) return { output: `${tool} was cancelled.`, isError: true, code: 'cancelled' };
      return {
        output: `The MCP server "${this.name}" failed during the call of ${tool}: ${(error as Error).message}`,
        isError: true,
        code: 'failed',
      };
    } finally {
      this.running--;
      this.scheduleIdleStop();
    }
  }

  /** The pid of its executor's launch (the sandbox's outermost process) while it runs: for benches and tests. */
  executorPid(): number | undefined {
    return this.client?.pid;
  }

  /** Reports its executor (the one running now, and each later one) to `registry`. */
  reportTo(registry: ExecutorRegistry): void {
    if (this.registry === registry) return;
    this.registry = registry;
    if (this.client) this.track(this.client);
  }

  /** Stops its executor (and with it the server); the next call starts it again. */
  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.startAbort?.abort();
    const executor = this.executor;
    this.executor = undefined;
    this.client = undefined;
    const client = await executor?.catch(() => undefined);
    await client?.shutdown().catch(() => client.kill());
    this.tracking?.stopped();
    this.tracking = undefined;
  }

  private track(client: ExecutorClient): void {
    this.tracking?.stopped();
    this.tracking =
      this.registry &&
      trackExecutor(this.registry, { role: 'mcp', name: this.name }, client, this.serverPolicy);
  }

  /**
   * Stops the executor once no call has run for `idleMs`. One timer, re-armed only when it fires
   * early, rather than one cleared and set again around every call (~10 µs a call).
   */
  private scheduleIdleStop(): void {
    this.lastUse = performance.now();
    if (this.idleTimer === undefined && this.running === 0 && this.executor)
      this.armIdleStop(this.options.idleMs);
  }

  private armIdleStop(delayMs: number): void {
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      // A call running now re-arms it when it ends.
      if (this.running > 0 || !this.executor) return;
      const idleFor = performance.now() - this.lastUse;
      if (idleFor >= this.options.idleMs) void this.stop();
      else this.armIdleStop(this.options.idleMs - idleFor);
    }, delayMs);
    this.idleTimer.unref();
  }

  private started(): Promise<ExecutorClient> {
    if (this.executor) return this.executor;
    const abort = new AbortController();
    this.startAbort = abort;
    this.executor = this.spawnOrRenew(abort.signal).catch((error: unknown) => {
      this.executor = undefined;
      if (abort.signal.aborted) throw new Error(`its start was stopped`);
      // A start refused with HTTP 401 says how to log in.
      const failure = new Error(withLoginHint((error as Error).message, this.name));
      this.failed = { reason: failure.message, at: new Date().toISOString() };
      // Never listed: the next run does not wait for it (see `ManifestMemory`).
      if (this.tools === undefined) this.memory().rememberFailure(failure.message);
      throw failure;
    });
    return this.executor;
  }

  /** A remote server that refuses its token at the start (HTTP 401): its login refreshed once, and one more start. */
  private async spawnOrRenew(signal: AbortSignal): Promise<ExecutorClient> {
    try {
      return await this.spawn(signal);
    } catch (error) {
      const { config } = this.options;
      if (!isHttpServer(config) || !(error as Error).message.includes(MCP_UNAUTHORIZED_MARK)) throw error;
      const { renewAfterRejection } = await import('../mcp-oauth/server-authorization.js');
      if (!(await renewAfterRejection(this.name, config))) throw error;
      return this.spawn(signal);
    }
  }

  private async spawn(signal: AbortSignal): Promise<ExecutorClient> {
    const { options } = this;
    const policy = await this.policy();
    const { spawnExecutor } = await import('../runtime/start-executor.js');
    // A remote server's login (`skate mcp login`): its access token, refreshed first if need be.
    const mcpServer = isHttpServer(options.config)
      ? await (await import('../mcp-oauth/server-authorization.js')).withOAuthToken(
          this.name,
          options.config,
          this.boot,
        )
      : this.boot;
    const client = await spawnExecutor(
      {
        kind: 'local',
        policy,
        sandbox: options.sandbox,
        mcpServer,
        // The executor's own boot, then the server's start and listing (bounded inside by startTimeoutMs).
        startupTimeoutMs: options.startTimeoutMs + 15_000,
        ...(options.onLog && { onLog: options.onLog }),
      },
      policy,
      { signal },
    );
    // A server that fails or times out starting takes its executor with it: none is left waiting;
    // the next start is a new executor (with a new token, after a refresh).
    const tools = await client.listTools().catch(async (error: unknown) => {
      await client.shutdown().catch(() => client.kill());
      throw error;
    });
    this.failed = undefined;
    const before = this.tools;
    this.tools = tools;
    this.memory().remember(tools);
    if (before && !sameTools(before, tools)) options.onToolsChanged?.();
    client.watchTools(MCP_TOOLS_CHANGED_STREAM, (listing) => {
      this.refreshing = listing.then(
        (listed) => {
          if (this.client !== client) return;
          this.tools = listed;
          this.memory().remember(listed);
          options.onToolsChanged?.();
        },
        () => undefined,
      );
    });
    this.client = client;
    this.serverPolicy = policy;
    this.track(client);
    client.onExit(() => {
      // It died or was stopped: the next call starts a new one.
      if (this.client !== client) return;
      this.client = undefined;
      this.executor = undefined;
    });
    return client;
  }

  /** The policy its executor runs under, or would if started now (throws when it may not run). */
  async executorPolicy(): Promise<ResolvedPolicy> {
    return this.serverPolicy ?? this.policy();
  }

  /** The policy its executor runs under (see `mcpServerPolicy`). */
  private async policy(): Promise<ResolvedPolicy> {
    return mcpServerPolicy(
      this.name,
      this.options.config,
      await this.options.agentPolicy(),
      this.options.workspace,
    );
  }
}

function sameTools(a: readonly ToolDefinition[], b: readonly ToolDefinition[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Where a server's tools are remembered. Its `env` or `headers` (tokens, often) go into the key's
 * hash only, as they reach its executor: without the harness's secrets.
 */
export function serverManifest(name: string, config: McpServerConfig): ManifestMemory {
  if (isHttpServer(config)) {
    const headers = withoutHarnessSecrets(config.headers ?? {});
    return manifestMemory({
      name,
      command: `${config.type} ${config.url}`,
      args: [],
      env: headers,
      policy: {},
    });
  }
  return manifestMemory({
    name,
    command: config.command,
    args: config.args ?? [],
    env: withoutHarnessSecrets(config.env ?? {}),
    policy: config.policy ?? {},
  });
}

/**
 * A server's executor policy: the agent's, narrowed. A stdio server gets its declared write paths
 * and network, never more than the agent's. A remote one writes nothing and reaches exactly its
 * URL's host and port: the user (or a workspace they consented to) named that server, as they name
 * a provider, so the agent's network being off does not stop it; a host the agent's policy denies
 * does (it throws, naming the server).
 */
export function mcpServerPolicy(
  name: string,
  config: McpServerConfig,
  agent: ResolvedPolicy,
  workspace: string,
): ResolvedPolicy {
  const label = `mcp-${name.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`.slice(0, 63);
  if (isHttpServer(config)) {
    const narrowed = narrowPolicy(agent, { name: label, readOnly: true, network: 'off' });
    const deny = agent.network.mode === 'allowlist' ? agent.network.deny : [];
    const url = new URL(config.url);
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const verdict = judgeHost(
      compileAllowlist({ allow: [remoteServerPattern(config.url)], deny }),
      url.hostname,
      port,
    );
    if (!verdict.allowed)
      throw new Error(
        `${url.host} is ${verdict.reason === 'denied' ? "on the agent's deny list" : 'not a host'}`,
      );
    return { ...narrowed, network: { mode: 'allowlist', allow: [remoteServerPattern(config.url)], deny } };
  }
  const declared = config.policy ?? {};
  const write = (declared.write ?? []).map((dir) => path.resolve(workspace, dir));
  return narrowPolicy(agent, {
    name: label,
    ...(write.length > 0 ? { writePaths: write } : { readOnly: true }),
    network: declared.network ?? 'off',
  });
}
