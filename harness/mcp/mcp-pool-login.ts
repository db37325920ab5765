import type { McpOAuthEntry } from '../../shared/mcp-oauth.js';
import { DEFAULT_LOGIN_TIMEOUT_MS, loginMcpServer } from '../mcp-oauth/login-mcp-server.js';
import { McpAuthError } from '../mcp-oauth/mcp-auth-error.js';
import { createOAuthStore, type OAuthStore } from '../mcp-oauth/oauth-store.js';
import { mcpAuthStatus } from '../mcp-oauth/server-authorization.js';
import type { McpPool } from './mcp-pool.js';
import type { McpServerState } from './mcp-server-handle.js';

export interface PoolLoginOptions {
  /** Shows the authorization URL (the server chose it: shown inert) and may open a browser. */
  onAuthorizationUrl(url: URL): void | Promise<void>;
  /** Ends the wait for the browser (the UI closed). */
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  store?: OAuthStore | undefined;
}

export interface PoolLogin {
  entry: McpOAuthEntry;
  /** Where the server stands after its start with the new login (running, or failed and why). */
  state: McpServerState | undefined;
  /** Its tools as the agents are now offered them (`mcp__server__tool`). */
  tools: string[];
}

function remoteOf(pool: McpPool, name: string) {
  const server = pool.remoteServer(name);
  if (!server)
    throw new McpAuthError(
      'not_remote',
      pool.list().some((row) => row.name === name)
        ? `the MCP server "${name}" runs locally (stdio): only remote servers log in`
        : `this session has no MCP server "${name}" (:mcp lists them)`,
    );
  return server;
}

/**
 * A login from inside a session (the terminal UI's `:mcp login NAME`): the same flow as
 * `skate mcp login` (`loginMcpServer`, the same store), for a server of this session's pool (so
 * already consented to and expanded as its runs use it); then the server is started again with
 * the token, so its tools are offered from the next request on, without restarting Skate.
 */
export async function loginPoolServer(
  pool: McpPool,
  name: string,
  options: PoolLoginOptions,
): Promise<PoolLogin> {
  const server = remoteOf(pool, name);
  const entry = await loginMcpServer({
    name,
    url: server.url,
    store: options.store ?? createOAuthStore(),
    timeoutMs: options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS,
    onAuthorizationUrl: options.onAuthorizationUrl,
    signal: options.signal,
  });
  const state = await pool.restart(name);
  const tools = pool
    .serverTools()
    .filter((each) => each.server === name)
    .flatMap((each) => each.tools.map((tool) => tool.definition.name));
  return { entry, state, tools };
}

/** `:mcp logout NAME`: its tokens forgotten (as `skate mcp logout`), its executor stopped; whether a login was kept. */
export async function logoutPoolServer(
  pool: McpPool,
  name: string,
  store = createOAuthStore(),
): Promise<boolean> {
  const server = remoteOf(pool, name);
  const had = await store.remove(server.url);
  // The running executor holds the token in its boot: it goes, the next call starts without it.
  await pool.stopServer(name);
  return had;
}

/** A remote server's login as `skate mcp list` words it; undefined for a local server or none kept. */
export async function poolServerLogin(
  pool: McpPool,
  name: string,
  store = createOAuthStore(),
): Promise<string | undefined> {
  const server = pool.remoteServer(name);
  if (!server) return undefined;
  const status = await mcpAuthStatus(server, store);
  if (!status) return 'no login kept';
  if (status.status === 'expired' && status.refreshable) return 'expired (refreshed at its next start)';
  return status.status;
}
