import type { McpAuthStatus, McpOAuthEntry } from '../../shared/mcp-oauth.js';
import type { McpBootServer, McpHttpServer } from '../../shared/mcp-servers.js';
import { withholdValue } from '../sandbox/executor-env.js';
import { authFetch } from './auth-fetch.js';
import { McpAuthError } from './mcp-auth-error.js';
import { MemoryOAuthProvider } from './memory-oauth-provider.js';
import { createOAuthStore, type OAuthStore } from './oauth-store.js';

/** A token this close to its expiry is refreshed before a server's executor starts. */
export const REFRESH_MARGIN_MS = 60_000;

function hasAuthorizationHeader(headers: Record<string, string> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
}

/** Whether a stored access token is past (or within the margin of) its expiry. */
function expiring(entry: McpOAuthEntry, now: number): boolean {
  return entry.expiresAt !== undefined && entry.expiresAt - now < REFRESH_MARGIN_MS;
}

/**
 * A remote server's boot with its login's access token as `Authorization: Bearer …`, refreshed
 * first when it is expired or about to be (never a new login: that is `skate mcp login` alone). The
 * token travels only in that executor's boot frame, and is withheld from every other sandbox's
 * environment. A configured `Authorization` header is the user's choice and wins.
 */
export async function withOAuthToken(
  name: string,
  config: McpHttpServer,
  boot: McpBootServer,
  store: OAuthStore = createOAuthStore(),
): Promise<McpBootServer> {
  if (boot.type !== 'http' && boot.type !== 'sse') return boot;
  if (hasAuthorizationHeader(config.headers)) return boot;
  let entry = await store.get(config.url);
  if (!entry?.tokens) return boot;
  if (expiring(entry, Date.now())) {
    if (!entry.tokens.refresh_token)
      throw new McpAuthError(
        'needs_login',
        `its login expired (and gave no refresh token): run \`skate mcp login ${name}\``,
      );
    entry = await refreshMcpLogin(name, config.url, store);
  }
  const token = entry.tokens?.access_token;
  if (!token) return boot;
  withholdValue(token);
  return { ...boot, headers: { ...boot.headers, Authorization: `Bearer ${token}` } };
}

/**
 * Refreshes a server's login with its refresh token through the SDK's `auth()` (its cached
 * discovery, its registration); throws `needs_login` when only a new login would do. What changed
 * is saved either way (a refresh token the server revoked is forgotten).
 */
export async function refreshMcpLogin(name: string, url: string, store: OAuthStore): Promise<McpOAuthEntry> {
  const entry = await store.get(url);
  if (!entry?.tokens?.refresh_token)
    throw new McpAuthError('needs_login', `no refresh token: run \`skate mcp login ${name}\``);
  const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
  const registered = (entry.client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  const provider = new MemoryOAuthProvider({
    entry,
    redirectUrl:
      Array.isArray(registered) && typeof registered[0] === 'string'
        ? registered[0]
        : 'http://127.0.0.1/callback',
  });
  let result: Awaited<ReturnType<typeof auth>>;
  try {
    result = await auth(provider, { serverUrl: url, fetchFn: authFetch() });
  } catch (error) {
    const failure = McpAuthError.fromUnknown(error);
    throw new McpAuthError(
      failure.code,
      `its login could not be refreshed (${failure.message}): run \`skate mcp login ${name}\``,
    );
  } finally {
    await store.update(url, name, () => provider.entry);
  }
  if (result !== 'AUTHORIZED' || !provider.entry.tokens)
    throw new McpAuthError(
      'needs_login',
      `its login could not be refreshed: run \`skate mcp login ${name}\``,
    );
  return provider.entry;
}

/**
 * After the server refused its token (HTTP 401): whether a refresh got a new one (the caller then
 * restarts the server's executor and retries once). Without a login, or when the refresh fails,
 * the server is recorded as needing a login (`skate mcp list` says so).
 */
export async function renewAfterRejection(
  name: string,
  config: McpHttpServer,
  store: OAuthStore = createOAuthStore(),
): Promise<boolean> {
  if (hasAuthorizationHeader(config.headers)) return false;
  try {
    await refreshMcpLogin(name, config.url, store);
    return true;
  } catch {
    await store
      .update(config.url, name, ({ tokens: _, expiresAt: __, ...rest }) => rest)
      .catch(() => undefined);
    return false;
  }
}

/**
 * How a remote server stands with its login (and whether an expired one can be refreshed at its
 * next start); undefined when it never had one nor asked for one, or its configured header is used.
 */
export async function mcpAuthStatus(
  config: McpHttpServer,
  store: OAuthStore = createOAuthStore(),
  now = Date.now(),
): Promise<{ status: McpAuthStatus; refreshable: boolean } | undefined> {
  if (hasAuthorizationHeader(config.headers)) return undefined;
  const entry = await store.get(config.url);
  if (!entry) return undefined;
  const refreshable = Boolean(entry.tokens?.refresh_token);
  if (!entry.tokens) return { status: 'needs login', refreshable };
  if (entry.expiresAt !== undefined && entry.expiresAt <= now) return { status: 'expired', refreshable };
  return { status: 'authenticated', refreshable };
}
