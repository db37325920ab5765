import type { McpPool, McpResourceServer, McpServerRow } from '../mcp/mcp-pool.js';
import type { PoolLogin, PoolLoginOptions } from '../mcp/mcp-pool-login.js';
import type { McpPromptCommand } from '../mcp/mcp-prompt-commands.js';
import type { ExecutorRegistry } from './executor-registry.js';

/**
 * An agent's share of the run's MCP servers: it holds the pool while it lives (the servers stop
 * once no agent of this process holds them) and answers the frontends' MCP questions and `:mcp`
 * commands. The login code loads only when a login is asked for.
 */
export class SessionMcp {
  private readonly release: (() => Promise<void>) | undefined;

  /** `main`: the main agent's (its prompts and resources are the frontends' to offer). */
  constructor(
    private readonly pool: McpPool | undefined,
    private readonly main: boolean,
    executors: ExecutorRegistry | undefined,
  ) {
    this.release = pool?.hold();
    if (executors) pool?.reportTo(executors);
  }

  promptCommands(): McpPromptCommand[] {
    return this.main ? (this.pool?.promptCommands() ?? []) : [];
  }

  resourceServers(): McpResourceServer[] {
    return this.main ? (this.pool?.resourceServers() ?? []) : [];
  }

  servers(): McpServerRow[] {
    return this.pool?.list() ?? [];
  }

  async login(name: string, options: PoolLoginOptions): Promise<PoolLogin> {
    const { loginPoolServer } = await import('../mcp/mcp-pool-login.js');
    return loginPoolServer(await this.requirePool(), name, options);
  }

  async logout(name: string): Promise<boolean> {
    const { logoutPoolServer } = await import('../mcp/mcp-pool-login.js');
    return logoutPoolServer(await this.requirePool(), name);
  }

  async loginStatus(name: string): Promise<string | undefined> {
    const { poolServerLogin } = await import('../mcp/mcp-pool-login.js');
    return this.pool ? poolServerLogin(this.pool, name) : undefined;
  }

  /** Lets go of the pool (the agent closed). */
  async close(): Promise<void> {
    await this.release?.();
  }

  private async requirePool(): Promise<McpPool> {
    if (this.pool) return this.pool;
    const { McpAuthError } = await import('../mcp-oauth/mcp-auth-error.js');
    throw new McpAuthError('not_remote', 'this session has no MCP servers (skate mcp list)');
  }
}
