/** Why a remote MCP server's OAuth (login, refresh, the endpoints it names) failed. */
export type McpAuthErrorCode =
  /** The server or its authorization server named a URL Skate will not talk to (not https, not loopback http). */
  | 'insecure_url'
  /** An answer too large, too slow, or not what the flow expects. */
  | 'bad_response'
  /** No usable login: only `skate mcp login` (never a headless run) can get one. */
  | 'needs_login'
  /** The browser's callback did not carry this flow's `state`, or carried an error. */
  | 'callback_refused'
  /** Nobody completed the authorization in time. */
  | 'timeout'
  /** The person (or the UI closing) ended the wait for the browser. */
  | 'cancelled'
  /** The name is not a configured remote server. */
  | 'not_remote';

/** One error class for the OAuth boundary (the harness and the servers it authenticates to). */
export class McpAuthError extends Error {
  constructor(
    readonly code: McpAuthErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'McpAuthError';
  }

  static fromUnknown(error: unknown): McpAuthError {
    if (error instanceof McpAuthError) return error;
    return new McpAuthError('bad_response', error instanceof Error ? error.message : String(error));
  }
}
