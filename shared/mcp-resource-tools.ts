/**
 * The names under which an MCP server's executor offers the server's resources (listing, reading)
 * next to its tools. Reserved: registered before the server's own tools, so a server's tool of the
 * same name is left out; the harness offers them as `mcp_list_resources` / `mcp_read_resource`.
 */
export const MCP_LIST_RESOURCES = '-skate-list-resources';
export const MCP_READ_RESOURCE = '-skate-read-resource';

export function isMcpResourceTool(name: string): boolean {
  return name === MCP_LIST_RESOURCES || name === MCP_READ_RESOURCE;
}
