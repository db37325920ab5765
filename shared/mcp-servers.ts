import * as z from 'zod';
import { NetworkSetting } from './policy.js';

/** A server's name: it becomes part of its tools' names (`mcp__<server>__<tool>`), 64 characters at most. */
export const McpServerName = z.string().regex(/^[a-zA-Z0-9_-]{1,32}$/, '1–32 letters, digits, _ and -');

/**
 * What a server's sandbox may do beyond the default (read as the agent reads, write nothing,
 * network off). Never wider than the agent's policy: it is narrowed against it.
 */
export const McpServerPolicy = z
  .object({
    write: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'Directories the server may write (absolute, or relative to the workspace); kept only where the agent may write.',
      ),
    network: NetworkSetting.optional().describe(
      'The server\'s network: "off" (default), "on" (as the agent\'s), or {"allow": [...hosts]}; kept only where the agent\'s reaches.',
    ),
  })
  .strict();
export type McpServerPolicy = z.infer<typeof McpServerPolicy>;

const VARIABLE_NAME = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name');

/** A local server Skate runs (Claude Code's `.mcp.json` stdio shape), confined in an executor of its own. */
export const McpStdioServer = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1).describe("The program to run (found on the sandbox's PATH)."),
  args: z.array(z.string()).optional(),
  env: z
    .record(VARIABLE_NAME, z.string())
    .optional()
    .describe("Variables for this server alone; Skate's and the providers' credentials never reach it."),
  policy: McpServerPolicy.optional(),
});
export type McpStdioServer = z.infer<typeof McpStdioServer>;

/**
 * A remote server (Streamable HTTP or SSE): nothing of the server runs locally. Skate connects to it
 * from an executor of its own whose network is the URL's host and port alone; `headers` (often
 * `Authorization`) travel in that executor's boot frame and reach nothing else.
 */
export const McpHttpServer = z.object({
  type: z.enum(['http', 'sse']),
  url: z.url({ protocol: /^https?$/ }).describe("The server's endpoint, http:// or https://."),
  headers: z
    .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'an HTTP header name'), z.string())
    .optional()
    .describe('Sent with every request to this server alone; never logged, never in an environment.'),
});
export type McpHttpServer = z.infer<typeof McpHttpServer>;

export const McpServerConfig = z.union([McpHttpServer, McpStdioServer]);
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** Whether a configured server is a remote one (nothing runs locally). */
export function isHttpServer(config: McpServerConfig): config is McpHttpServer {
  return config.type === 'http' || config.type === 'sse';
}

export const McpServers = z.record(McpServerName, McpServerConfig);
export type McpServers = z.infer<typeof McpServers>;

/** A project's `.mcp.json`, as Claude Code writes it. */
export const McpJsonFile = z.object({ mcpServers: McpServers });
export type McpJsonFile = z.infer<typeof McpJsonFile>;

/** How Skate treats MCP servers (the user's settings file; a workspace's may only narrow). */
export const McpSettings = z
  .object({
    workspaceServersHeadless: z
      .boolean()
      .optional()
      .describe(
        'Let headless runs (-p, ACP, serve) use the servers a workspace names (its .mcp.json, its settings) without a recorded consent, as --trust-workspace-mcp does. Only in ~/.skate/settings.json.',
      ),
    idleStopSeconds: z
      .number()
      .positive()
      .optional()
      .describe(
        'A started server with no call for this long is stopped (default 300); its next call starts it again.',
      ),
    startTimeoutSeconds: z
      .number()
      .positive()
      .optional()
      .describe(
        'How long a server may take to start and list its tools (default 30) before its calls fail naming it.',
      ),
    toolSchemaBudget: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "Bytes of MCP tool schemas sent with each request (default 4096). Past it, the model gets a tool_search tool instead, and a tool's schema is sent once a search loads it.",
      ),
  })
  .strict();
export type McpSettings = z.infer<typeof McpSettings>;

/** The stdio server an executor runs as its child (`ExecutorBoot.mcpServer`); travels in the boot frame, never argv. */
export const McpBootStdioServer = z.object({
  type: z.literal('stdio').optional(),
  name: McpServerName,
  command: z.string().min(1),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  /** How long starting the server and listing its tools may take. */
  startTimeoutMs: z.number().int().positive(),
});
export type McpBootStdioServer = z.infer<typeof McpBootStdioServer>;

/** The remote server an executor connects to (its network is the URL's host and port alone). */
export const McpBootRemoteServer = z.object({
  type: z.enum(['http', 'sse']),
  name: McpServerName,
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()),
  /** How long connecting and listing its tools may take. */
  startTimeoutMs: z.number().int().positive(),
});
export type McpBootRemoteServer = z.infer<typeof McpBootRemoteServer>;

/** The server an MCP executor speaks to: a child it runs (stdio), or a remote one it connects to. */
export const McpBootServer = z.union([McpBootRemoteServer, McpBootStdioServer]);
export type McpBootServer = z.infer<typeof McpBootServer>;

/**
 * The one host pattern a remote server's executor may reach: `host:port` when the URL names a port
 * (a loopback server is reachable only so), the bare host (ports 80 and 443, TLS server name
 * checked, never a loopback or link-local answer) when it does not.
 */
export function remoteServerPattern(url: string): string {
  const parsed = new URL(url);
  return parsed.port ? `${parsed.hostname}:${parsed.port}` : parsed.hostname;
}

/** Whether an MCP executor's server is a remote one (it connects rather than runs). */
export function isRemoteBoot(server: McpBootServer): server is McpBootRemoteServer {
  return server.type === 'http' || server.type === 'sse';
}
