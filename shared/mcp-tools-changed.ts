/**
 * The output stream (a `toolOutput` call id no call uses) on which an MCP server's executor says
 * that the server announced `notifications/tools/list_changed` and its tool list was refreshed: one
 * line per change; the harness then lists the executor's tools again. Reserved like the resource
 * tools' names, so the executor's tRPC needs no procedure of its own for it.
 */
export const MCP_TOOLS_CHANGED_STREAM = '-skate-mcp-tools-changed';
