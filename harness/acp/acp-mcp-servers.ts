import type { McpServer } from '@agentclientprotocol/sdk';
import { McpHttpServer, type McpServerConfig, McpStdioServer } from '../../shared/mcp-servers.js';
import type { McpServerEntry } from '../mcp/setup-mcp.js';

/** Where a client's servers are said to come from (`skate mcp list`, notes). */
export const ACP_CLIENT_SOURCE = 'the ACP client';

/**
 * The MCP servers an editor sends in `session/new` or `session/load`, as Skate's server entries: a
 * client's server is like one of the user's settings (no workspace consent), confined and narrowed
 * as any server. A name Skate cannot use as `mcp__<name>__<tool>` is made one (other characters
 * become `_`); a server that does not fit the shape is left out, and said.
 */
export function mcpServersFromClient(servers: readonly McpServer[]): {
  entries: McpServerEntry[];
  problems: string[];
} {
  const entries: McpServerEntry[] = [];
  const problems: string[] = [];
  for (const server of servers) {
    const name = server.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 32);
    const shown = JSON.stringify(server.name.slice(0, 80));
    if (!name) {
      problems.push(`the MCP server ${shown} has no usable name`);
      continue;
    }
    if (entries.some((entry) => entry.name === name)) {
      problems.push(`the MCP server ${shown} is not used: another server of this session is named ${name}`);
      continue;
    }
    const parsed = configOf(server);
    if (!parsed.success) {
      problems.push(`the MCP server ${shown} is not used: ${parsed.error}`);
      continue;
    }
    entries.push({ name, config: parsed.config, scope: 'client', file: ACP_CLIENT_SOURCE });
  }
  return { entries, problems };
}

function configOf(
  server: McpServer,
): { success: true; config: McpServerConfig } | { success: false; error: string } {
  const pairs = (list: readonly { name: string; value: string }[]) =>
    Object.fromEntries(list.map((item) => [item.name, item.value]));
  const parsed =
    'type' in server && (server.type === 'http' || server.type === 'sse')
      ? McpHttpServer.safeParse({ type: server.type, url: server.url, headers: pairs(server.headers) })
      : McpStdioServer.safeParse({
          command: (server as { command?: unknown }).command,
          args: (server as { args?: unknown }).args,
          env: pairs((server as { env?: { name: string; value: string }[] }).env ?? []),
        });
  if (parsed.success) return { success: true, config: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    success: false,
    error: `${issue?.path.join('.') || 'the server'}: ${issue?.message ?? 'invalid'}`,
  };
}
