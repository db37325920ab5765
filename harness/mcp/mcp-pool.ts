import { MCP_LIST_RESOURCES, MCP_READ_RESOURCE } from '../../shared/mcp-resource-tools.js';
import type { McpHttpServer } from '../../shared/mcp-servers.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { ToolResult } from '../../shared/tool.js';
import type { MetaTool } from '../engine/engine-types.js';
import type { ExecutorRegistry } from '../runtime/executor-registry.js';
import type { SandboxMode } from '../sandbox/choose-launcher.js';
import { DEFAULT_TOOL_SCHEMA_BUDGET } from './budget-mcp-tools.js';
import { withProgress } from './mcp-progress.js';
import { type McpPromptCommand, promptCommandsOf } from './mcp-prompt-commands.js';
import { McpServerHandle, type McpServerState } from './mcp-server-handle.js';
import type { McpServerEntry } from './setup-mcp.js';

/** Tool names the Messages API accepts are 64 characters at most. */
const MAX_TOOL_NAME = 64;
/** A server's description of a tool is its own text: kept to this in the request. */
const MAX_DESCRIPTION_CHARS = 2048;

export const DEFAULT_IDLE_STOP_SECONDS = 300;
export const DEFAULT_START_TIMEOUT_SECONDS = 30;

export interface McpPoolOptions {
  servers: readonly McpServerEntry[];
  workspace: string;
  sandbox: SandboxMode;
  agentPolicy: () => Promise<ResolvedPolicy>;
  idleStopSeconds?: number | undefined;
  startTimeoutSeconds?: number | undefined;
  note(line: string): void;
  onLog?: ((line: string) => void) | undefined;
  /** Start the servers whose tools are not remembered, to list them (false for `skate mcp list`). */
  discover?: boolean;
  /**
   * A pool whose servers this one offers too (the run's, under an ACP session's own): shared, held
   * while this one is; a name it already has is not redefined.
   */
  base?: McpPool | undefined;
  /** Bytes of tool schemas offered before `tool_search` replaces them (`mcp.toolSchemaBudget`). */
  toolSchemaBudget?: number | undefined;
}

/** One server's meta tools, and the policy its executor runs (or would run) under. */
export interface McpServerTools {
  server: string;
  policy(): Promise<ResolvedPolicy>;
  tools: MetaTool[];
  /** Its resources, when it declares some (a sub-agent given the server is given them too). */
  resources?: McpResourceServer | undefined;
}

/** A server that declares resources. */
export interface McpResourceServer {
  server: string;
  list(signal: AbortSignal): Promise<ToolResult>;
  read(uri: string, signal: AbortSignal): Promise<ToolResult>;
}

/** One row of `skate mcp list` and of the run's notes. */
export interface McpServerRow {
  name: string;
  scope: McpServerEntry['scope'];
  file: string;
  state: McpServerState;
}

/**
 * The run's MCP servers: each server (stdio or remote) a handle with an executor of its own, offered to the
 * model as `mcp__<server>__<tool>` meta tools that go through the engine's one tool-call path
 * (rules, hooks, approvals). Shared by the agents of one process; the last one to let go stops them.
 */
export class McpPool {
  private readonly handles: McpServerHandle[] = [];
  private readonly rows: McpServerRow[] = [];
  private holders = 0;
  private changes = 0;
  /** Bytes of MCP tool schemas an agent is sent before they are deferred behind `tool_search`. */
  readonly toolSchemaBudget: number;

  private constructor(
    toolSchemaBudget: number,
    private readonly base?: McpPool,
  ) {
    this.toolSchemaBudget = toolSchemaBudget;
  }

  /**
   * The servers with their tools: remembered ones at once, the others started now (in parallel)
   * to list theirs, but for those whose last start failed, which start in the background. A server
   * that fails to start is said, never dropped silently.
   */
  static async create(options: McpPoolOptions): Promise<McpPool> {
    const pool = new McpPool(options.toolSchemaBudget ?? DEFAULT_TOOL_SCHEMA_BUDGET, options.base);
    const taken = new Set(options.base?.list().map((row) => row.name));
    const idleMs = (options.idleStopSeconds ?? DEFAULT_IDLE_STOP_SECONDS) * 1000;
    const startTimeoutMs = (options.startTimeoutSeconds ?? DEFAULT_START_TIMEOUT_SECONDS) * 1000;
    for (const entry of options.servers) {
      if (taken.has(entry.name)) {
        options.note(
          `MCP server "${entry.name}" (${entry.file}) is not used: ${entry.name} is already defined`,
        );
        continue;
      }
      taken.add(entry.name);
      const handle = new McpServerHandle({
        name: entry.name,
        config: entry.config,
        workspace: options.workspace,
        sandbox: options.sandbox,
        agentPolicy: options.agentPolicy,
        idleMs,
        startTimeoutMs,
        onLog: options.onLog,
        onToolsChanged: () => {
          pool.changes++;
        },
      });
      pool.handles.push(handle);
      pool.rows.push({ ...rowOf(entry), state: { status: 'configured' } });
    }
    await Promise.all(
      pool.handles.map(async (handle) => {
        if ((await handle.recall()) || options.discover === false) return;
        // It failed at its last start: said, not waited for (the first request goes without its
        // tools), and started again meanwhile; tools it then lists join the next request.
        const failure = await handle.recallFailure();
        if (failure) {
          options.note(
            `MCP server "${handle.name}" failed to start at ${failure.at}: ${failure.reason}; this run does not wait for it but starts it again in the background, and offers its tools once it lists them`,
          );
          void handle.discover().then(
            () => {
              pool.changes++;
            },
            () => undefined,
          );
          return;
        }
        await handle.discover().catch((error: Error) => {
          options.note(`MCP server "${handle.name}" offers no tools this run: ${error.message}`);
        });
      }),
    );
    return pool;
  }

  /**
   * Counts the changes of any server's tools since the pool was made (a server announced
   * `tools/list_changed`, or listed others than remembered): an agent whose count is behind takes
   * `metaTools()` again before its next request.
   */
  toolsVersion(): number {
    return this.changes + (this.base?.toolsVersion() ?? 0);
  }

  /** Each server's tools as meta tools, under their MCP annotations' effect (`readOnlyHint`: no approval). */
  metaTools(): MetaTool[] {
    return this.serverTools().flatMap((server) => server.tools);
  }

  /**
   * The same tools by server, with the policy each server's executor runs under: a sub-agent is
   * given a server's tools only when that policy is no wider than its own (`mcpToolsForChild`).
   */
  serverTools(): McpServerTools[] {
    const servers: McpServerTools[] = this.base?.serverTools() ?? [];
    for (const handle of this.handles) {
      const tools: MetaTool[] = [];
      for (const tool of handle.knownTools()) {
        const name = `mcp__${handle.name}__${tool.name}`;
        if (name.length > MAX_TOOL_NAME) continue;
        tools.push({
          definition: {
            name,
            description: tool.description.slice(0, MAX_DESCRIPTION_CHARS),
            effect: tool.effect,
            inputSchema: tool.inputSchema,
          },
          run: (call) =>
            withProgress(call, (onOutput) => handle.call(tool.name, call.input, call.signal, onOutput)),
        });
      }
      servers.push({
        server: handle.name,
        policy: () => handle.executorPolicy(),
        tools,
        resources: handle.hasResources() ? resourceServer(handle) : undefined,
      });
    }
    return servers;
  }

  /** The servers that declare resources, each with a way to list or read them through its executor. */
  resourceServers(): McpResourceServer[] {
    const servers: McpResourceServer[] = this.base?.resourceServers() ?? [];
    for (const handle of this.handles) if (handle.hasResources()) servers.push(resourceServer(handle));
    return servers;
  }

  /** The servers' prompts as slash commands (`/mcp__server__prompt`), known without starting them. */
  promptCommands(): McpPromptCommand[] {
    const commands = this.base?.promptCommands() ?? [];
    for (const handle of this.handles)
      commands.push(
        ...promptCommandsOf(handle.name, handle.promptTools(), (tool, input, signal) =>
          handle.call(tool, input, signal),
        ),
      );
    return commands;
  }

  /** Every server as configured, and where it is now. */
  list(): McpServerRow[] {
    const own = this.rows.map((row) => {
      const handle = this.handles.find((h) => h.name === row.name);
      return handle ? { ...row, state: handle.state() } : row;
    });
    return [...(this.base?.list() ?? []), ...own];
  }

  /** The remote server `name` as its runs use it (its login is kept under its URL); undefined for none such. */
  remoteServer(name: string): McpHttpServer | undefined {
    const handle = this.handles.find((h) => h.name === name);
    return handle ? handle.remote() : this.base?.remoteServer(name);
  }

  /**
   * After a login or a logout (`:mcp login`): the server's executor is stopped and started again,
   * so that it runs with the login as it is now, and lists its tools; the agents' next requests
   * offer them (a server that never started before a login had none). Its state after that start;
   * undefined when no server has that name.
   */
  async restart(name: string): Promise<McpServerState | undefined> {
    const handle = this.handles.find((h) => h.name === name);
    if (!handle) return this.base?.restart(name);
    await handle.stop();
    // A failure is in its state (why and when), which is what the caller shows.
    await handle.discover().catch(() => undefined);
    this.changes++;
    return handle.state();
  }

  /** Stops the server `name`'s executor (after a logout: the next call starts it without the login); whether there is one such. */
  async stopServer(name: string): Promise<boolean> {
    const handle = this.handles.find((h) => h.name === name);
    if (!handle) return (await this.base?.stopServer(name)) ?? false;
    await handle.stop();
    return true;
  }

  /** Each server's executor is reported to `registry` from now on (the terminal UI's executor panel). */
  reportTo(registry: ExecutorRegistry): void {
    for (const handle of this.handles) handle.reportTo(registry);
  }

  /** An agent that uses the servers; its release stops them once no agent holds them. */
  hold(): () => Promise<void> {
    this.holders++;
    const releaseBase = this.base?.hold();
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      this.holders--;
      await Promise.all([this.holders === 0 ? this.stopAll() : undefined, releaseBase?.()]);
    };
  }

  /** Stops this pool's own servers (a base pool's are its own to stop). */
  async stopAll(): Promise<void> {
    await Promise.all(this.handles.map((handle) => handle.stop()));
  }
}

function resourceServer(handle: McpServerHandle): McpResourceServer {
  return {
    server: handle.name,
    list: (signal) => handle.call(MCP_LIST_RESOURCES, {}, signal),
    read: (uri, signal) => handle.call(MCP_READ_RESOURCE, { uri }, signal),
  };
}

function rowOf(entry: McpServerEntry): Omit<McpServerRow, 'state'> {
  return { name: entry.name, scope: entry.scope, file: entry.file };
}
