import { isHttpServer, type McpHttpServer, type McpServerConfig } from '../../shared/mcp-servers.js';
import { expandServerConfig } from '../mcp/expand-server-config.js';
import { isWithheldVariable } from '../sandbox/executor-env.js';
import { mcpAuthStatus } from './server-authorization.js';

/**
 * What `skate mcp list` says of a remote server's login: `authenticated`, `expired` (refreshed at its
 * next start, or log in again), `needs login` (it answered 401), or undefined (no login kept).
 */
export async function authStatusLine(
  name: string,
  config: McpServerConfig,
  scope: 'user' | 'workspace',
): Promise<string | undefined> {
  if (!isHttpServer(config)) return undefined;
  const expanded = expandServerConfig(config, {
    env: process.env,
    forbidden: scope === 'workspace' ? isWithheldVariable : undefined,
  });
  if (!expanded.ok) return undefined;
  const status = await mcpAuthStatus(expanded.config as McpHttpServer);
  if (!status) return undefined;
  if (status.status === 'authenticated') return 'authenticated';
  if (status.status === 'expired' && status.refreshable) return 'expired (refreshed at its next start)';
  return `${status.status}: skate mcp login ${name}`;
}
