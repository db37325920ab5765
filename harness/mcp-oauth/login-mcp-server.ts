import { randomBytes } from 'node:crypto';
import type { McpOAuthEntry } from '../../shared/mcp-oauth.js';
import { authFetch, checkAuthUrl } from './auth-fetch.js';
import { listenForCallback } from './callback-listener.js';
import { McpAuthError } from './mcp-auth-error.js';
import { MemoryOAuthProvider } from './memory-oauth-provider.js';
import type { OAuthStore } from './oauth-store.js';

export interface LoginOptions {
  name: string;
  url: string;
  store: OAuthStore;
  /** Shows the authorization URL to the person logging in (and may open a browser). */
  onAuthorizationUrl(url: URL): void | Promise<void>;
  /** How long the person has to authorize in the browser. */
  timeoutMs: number;
  /** Ends the wait for the browser (the terminal UI closed); the login then fails as `cancelled`. */
  signal?: AbortSignal | undefined;
}

/** How long the person has to authorize in the browser, by default (`skate mcp login`, `:mcp login`). */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;

/**
 * `skate mcp login` and the terminal UI's `:mcp login`: the MCP authorization flow with the SDK's own client (`auth()`): protected-
 * resource and authorization-server discovery, dynamic client registration, PKCE, the browser sent
 * to the authorization URL, the code back on a one-shot loopback listener checked against `state`,
 * then the token exchange. Run in the harness (the user's credential, like a provider key); the
 * result is saved only once the tokens are in hand.
 */
export async function loginMcpServer(options: LoginOptions): Promise<McpOAuthEntry> {
  const { name, url } = options;
  // Tokens are sent to this URL: never in the clear across a network.
  checkAuthUrl(url, `the MCP server "${name}"'s URL`);
  const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
  const state = randomBytes(32).toString('base64url');
  await using callback = await listenForCallback({
    state,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  // A new registration each time: its redirect URI names this listener's port.
  const provider = new MemoryOAuthProvider({
    entry: { url, server: name },
    redirectUrl: callback.redirectUrl,
    state,
    onAuthorizationUrl: options.onAuthorizationUrl,
  });
  const fetchFn = authFetch();
  try {
    let result = await auth(provider, { serverUrl: url, fetchFn });
    if (result === 'REDIRECT') {
      const code = await callback.code;
      result = await auth(provider, { serverUrl: url, authorizationCode: code, fetchFn });
    }
    if (result !== 'AUTHORIZED' || !provider.entry.tokens)
      throw new McpAuthError('bad_response', 'the authorization server gave no token');
  } catch (error) {
    throw McpAuthError.fromUnknown(error);
  }
  await options.store.update(url, name, () => provider.entry);
  return provider.entry;
}
