import * as z from 'zod';

/**
 * One remote MCP server's OAuth state (`skate mcp login`), keyed by the server's URL as configured:
 * a token is sent only to the URL it was obtained for, whatever a later file names a server.
 * What the SDK's auth client hands over (tokens, client registration, discovery) is kept as it
 * gave it (`looseObject`), so its `issuer` stamps survive a round trip.
 */
export const McpOAuthEntry = z.object({
  /** The server's URL, exactly as configured: the key. */
  url: z.string().url(),
  /** The server's name when it logged in (for messages; the URL is what matters). */
  server: z.string(),
  /** The SDK's `OAuthClientInformation` (dynamic registration's answer). */
  client: z.looseObject({ client_id: z.string() }).optional(),
  /** The SDK's `OAuthTokens`. */
  tokens: z.looseObject({ access_token: z.string(), token_type: z.string() }).optional(),
  /** When the access token expires (ms since the epoch), from `expires_in` when it was saved. */
  expiresAt: z.number().optional(),
  /** The SDK's `OAuthDiscoveryState` (protected-resource and authorization-server metadata). */
  discovery: z.looseObject({ authorizationServerUrl: z.string() }).optional(),
});
export type McpOAuthEntry = z.infer<typeof McpOAuthEntry>;

/** `~/.skate/mcp-auth/tokens.json`: mode 0600 in a 0700 directory hidden from every sandbox. */
export const McpOAuthFile = z.object({ version: z.literal(1), entries: z.array(McpOAuthEntry) });
export type McpOAuthFile = z.infer<typeof McpOAuthFile>;

/** How a remote server stands with its login, as `skate mcp list` says it. */
export type McpAuthStatus = 'authenticated' | 'expired' | 'needs login';

/**
 * In an MCP executor's start failure when the server answered HTTP 401: the harness then refreshes
 * the server's login (once) or says `skate mcp login`. A call answered 401 has the code `unauthorized`.
 */
export const MCP_UNAUTHORIZED_MARK = '[HTTP 401: unauthorized]';
