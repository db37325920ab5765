import { MCP_UNAUTHORIZED_MARK } from '../../shared/mcp-oauth.js';
import type { ToolResult } from '../../shared/tool.js';

/** What the model (and so the user) reads when a server's login is missing, expired or revoked. */
export function loginNeededResult(server: string): ToolResult {
  return {
    output: `The MCP server "${server}" refused Skate's credentials (HTTP 401): its login is missing, expired or revoked. The user can run \`skate mcp login ${server}\` in a terminal, then the call can be made again.`,
    isError: true,
    code: 'unauthorized',
  };
}

/** A start that failed on HTTP 401 says how to log in (the mark stays: the caller tells it by it). */
export function withLoginHint(message: string, server: string): string {
  return message.includes(MCP_UNAUTHORIZED_MARK)
    ? `${message}\nrun \`skate mcp login ${server}\` to authorize Skate`
    : message;
}
