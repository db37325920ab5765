/** An MCP tool's name in parts: `mcp__fs__read_file` is server `fs`, tool `read_file`. */
export function mcpToolParts(name: string): { server: string; tool: string } | undefined {
  const match = /^mcp__([a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*)__(.+)$/.exec(name);
  return match ? { server: match[1] as string, tool: match[2] as string } : undefined;
}

/** A tool's name as a person reads it: `fs · read_file` for an MCP tool, else the name itself. */
export function toolLabel(name: string): string {
  const parts = mcpToolParts(name);
  return parts ? `${parts.server} · ${parts.tool}` : name;
}
