import { isNarrowerOrEqual } from '../../shared/narrow-policy.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { MetaTool } from '../engine/engine-types.js';
import type { McpResourceServer, McpServerTools } from './mcp-pool.js';
import { mcpResourceTools } from './mcp-resource-tools.js';

export interface McpChildGrant {
  /** The MCP tools the sub-agent is given (each call through the server's one executor). */
  tools: MetaTool[];
  /** Its `tools` without the MCP names and patterns (those are resolved here). */
  rest: string[];
  /** One line per server (or name) asked for and refused, for the model. */
  notGranted: string[];
  /**
   * The MCP tools the same grant gives now (`mcpToolsNow`): the servers given at spawn, the names
   * and patterns asked for. A server that changed its tools (`tools/list_changed`) changes them.
   */
  current(servers: readonly McpServerTools[]): MetaTool[];
  /**
   * What the sub-agent may hand its own children, from the servers as they are now: the servers
   * it was given, each with only the tools its names and patterns match (and its resources only
   * where it was given them). A grandchild's grant is taken from this, so it is never wider at
   * any level, and a `tools/list_changed` is narrowed the same way at each.
   */
  servers(now: readonly McpServerTools[]): McpServerTools[];
}

/** The MCP servers an agent may give its sub-agents: the run's pool for the main agent, a grant's `servers` below it. */
export interface McpGrantSource {
  serverTools(): McpServerTools[];
  /** Counts changes of the servers' tools (`McpPool.toolsVersion`); absent: they never change. */
  toolsVersion?(): number;
}

/** An `mcp__server__tool` name or an `mcp__server__*` pattern. */
export function isMcpToolName(name: string): boolean {
  return name.startsWith('mcp__');
}

/** The resource tools' names: asked for by name, they give the resources of every server the child may be given. */
const RESOURCE_TOOLS: ReadonlySet<string> = new Set(['mcp_list_resources', 'mcp_read_resource']);

function matches(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}

/**
 * The MCP tools a sub-agent's `tools` name. A server's tools are given only when the policy its
 * executor runs under is no wider than the sub-agent's own (`isNarrowerOrEqual`): a read-only
 * child is not handed a server that writes, a child without network one that reaches a host.
 * Otherwise the server is refused whole, with a `not granted` line.
 */
export async function mcpToolsForChild(
  wanted: readonly string[],
  servers: readonly McpServerTools[],
  child: ResolvedPolicy,
): Promise<McpChildGrant> {
  const patterns = wanted.filter(isMcpToolName);
  const rest = wanted.filter((name) => !isMcpToolName(name) && !RESOURCE_TOOLS.has(name));
  const allResources = wanted.some((name) => RESOURCE_TOOLS.has(name));
  const tools: MetaTool[] = [];
  const notGranted: string[] = [];
  const matched = new Set<string>();
  const resources: McpResourceServer[] = [];
  /** The servers given (their policy no wider than the child's): the only ones a later change can add from. */
  const granted = new Set<string>();
  /** The servers whose resources were given. */
  const grantedResources = new Set<string>();
  for (const server of servers) {
    const asked = server.tools.filter((tool) =>
      patterns.some((pattern) => matches(pattern, tool.definition.name)),
    );
    // `mcp__s__*` names a server's resources too (a server may have resources and no tools).
    const wholeServer = patterns.some((pattern) => matches(pattern, `mcp__${server.server}__`));
    const askedResources = server.resources !== undefined && (allResources || wholeServer);
    if (askedResources && wholeServer)
      for (const pattern of patterns) if (matches(pattern, `mcp__${server.server}__`)) matched.add(pattern);
    if (asked.length === 0 && !askedResources) continue;
    for (const tool of asked)
      for (const pattern of patterns) if (matches(pattern, tool.definition.name)) matched.add(pattern);
    let why: string | undefined;
    try {
      const policy = await server.policy();
      if (!isNarrowerOrEqual(policy, child))
        why = 'its executor may write or reach more than this sub-agent may';
    } catch (error) {
      why = (error as Error).message;
    }
    if (why)
      notGranted.push(
        `MCP server "${server.server}" (${asked.length} tools${askedResources ? ', resources' : ''}): ${why}`,
      );
    else {
      tools.push(...asked);
      granted.add(server.server);
      if (askedResources && server.resources) {
        resources.push(server.resources);
        grantedResources.add(server.server);
      }
    }
  }
  const resourceTools = resources.length > 0 ? mcpResourceTools(resources) : [];
  tools.push(...resourceTools);
  if (resources.length === 0 && allResources && !notGranted.some((line) => line.includes(', resources)')))
    notGranted.push('mcp_list_resources, mcp_read_resource: no MCP server declares resources');
  for (const pattern of patterns)
    if (!matched.has(pattern)) notGranted.push(`${pattern}: no MCP tool of that name`);
  const named = (server: McpServerTools): MetaTool[] =>
    server.tools.filter((tool) => patterns.some((pattern) => matches(pattern, tool.definition.name)));
  const current = (now: readonly McpServerTools[]): MetaTool[] => [
    ...now.filter((server) => granted.has(server.server)).flatMap(named),
    ...resourceTools,
  ];
  const grantedServers = (now: readonly McpServerTools[]): McpServerTools[] =>
    now
      .filter((server) => granted.has(server.server))
      .map((server) => ({
        server: server.server,
        policy: server.policy,
        tools: named(server),
        resources: grantedResources.has(server.server) ? server.resources : undefined,
      }));
  return { tools, rest, notGranted, current, servers: grantedServers };
}
