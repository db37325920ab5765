import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthEntry } from '../../shared/mcp-oauth.js';
import { checkAuthUrl } from './auth-fetch.js';
import { McpAuthError } from './mcp-auth-error.js';

export interface MemoryOAuthProviderOptions {
  /** The server's login as it stands (a fresh one for a login); changed in place as the flow goes. */
  entry: McpOAuthEntry;
  /** The callback listener's URL (a login), or the one registered before (a refresh). */
  redirectUrl: string;
  /** This flow's `state` (a login). */
  state?: string;
  /** A login: shows (and maybe opens) the authorization URL. Absent: no login flow may start (a run, headless or not). */
  onAuthorizationUrl?: (url: URL) => void | Promise<void>;
}

/** Endpoints of an authorization server's metadata the flow may use. */
const ENDPOINTS = [
  'authorization_endpoint',
  'token_endpoint',
  'registration_endpoint',
  'revocation_endpoint',
] as const;

/**
 * The SDK's `OAuthClientProvider` over one server's entry, held in memory while `auth()` runs:
 * the caller writes it to the store when the flow is done (a login that fails midway leaves the
 * previous one as it was). Every URL the server names on the way is checked (`checkAuthUrl`).
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  entry: McpOAuthEntry;
  private verifier: string | undefined;

  constructor(private readonly options: MemoryOAuthProviderOptions) {
    this.entry = options.entry;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Skate',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A public client (PKCE): nothing secret to keep beyond the tokens.
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    if (this.options.state === undefined) throw new McpAuthError('needs_login', 'no login flow here');
    return this.options.state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.entry.client as OAuthClientInformationMixed | undefined;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.entry = { ...this.entry, client };
  }

  tokens(): OAuthTokens | undefined {
    return this.entry.tokens as OAuthTokens | undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    const { expiresAt: _, ...rest } = this.entry;
    this.entry = {
      ...rest,
      tokens,
      ...(tokens.expires_in !== undefined && { expiresAt: Date.now() + tokens.expires_in * 1000 }),
    };
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    checkAuthUrl(url, 'the authorization endpoint');
    if (!this.options.onAuthorizationUrl)
      throw new McpAuthError('needs_login', 'the server asks for a new authorization');
    await this.options.onAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new McpAuthError('bad_response', 'no PKCE verifier in this flow');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    const { client, tokens, expiresAt, discovery, ...rest } = this.entry;
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    this.entry = {
      ...rest,
      ...(scope !== 'all' && scope !== 'client' && client && { client }),
      ...(scope !== 'all' && scope !== 'tokens' && tokens && { tokens, expiresAt }),
      ...(scope !== 'all' && scope !== 'discovery' && discovery && { discovery }),
    };
  }

  /** The server names its authorization server (and that one its endpoints): each is checked before any is used. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    checkAuthUrl(state.authorizationServerUrl, 'the authorization server');
    const metadata = state.authorizationServerMetadata as Record<string, unknown> | undefined;
    for (const key of ENDPOINTS) {
      const value = metadata?.[key];
      if (value !== undefined) checkAuthUrl(String(value), `the authorization server's ${key}`);
    }
    this.entry = {
      ...this.entry,
      discovery: JSON.parse(JSON.stringify(state)) as McpOAuthEntry['discovery'],
    };
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.entry.discovery as OAuthDiscoveryState | undefined;
  }
}
