import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

export interface McpOAuthServerOptions {
  /** Seconds an access token lives (default 3600). */
  accessTtlSeconds?: number;
  /** Changes the authorization server's metadata as served (a hostile server's endpoints). */
  metadata?: (metadata: Record<string, unknown>, base: string) => Record<string, unknown>;
  /** The authorization server the protected-resource metadata names (default: this server). */
  authorizationServer?: (base: string) => string;
}

/**
 * A real MCP server (the SDK's `McpServer` over `StreamableHTTPServerTransport`) on 127.0.0.1 that
 * answers 401 without a valid bearer token, and its authorization server on the same origin:
 * RFC 9728 protected-resource metadata, RFC 8414 metadata, dynamic registration, an authorize
 * endpoint that approves at once (the user in the "browser"), and a token endpoint checking PKCE
 * (S256) and the redirect URI, issuing refresh tokens.
 */
export interface TestMcpOAuthServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/mcp`. */
  url: string;
  base: string;
  /** Requests per endpoint path (`/register`, `/token`, `/authorize`, `/mcp`, the well-known ones). */
  readonly hits: Record<string, number>;
  /** The `Authorization` headers `/mcp` saw, in order. */
  readonly authorizations: (string | undefined)[];
  /** Grants asked of the token endpoint, in order (`authorization_code`, `refresh_token`). */
  readonly grants: string[];
  /** Access tokens issued, in order. */
  readonly accessTokens: string[];
  readonly refreshTokens: string[];
  readonly calls: { name: string; args: unknown }[];
  /** Every access token issued so far stops working (expired at the server). */
  expireAccessTokens(): void;
  /** Every access and refresh token is revoked. */
  revokeAll(): void;
}

interface Code {
  clientId: string;
  challenge: string;
  redirectUri: string;
}

function base64url(data: Buffer): string {
  return data.toString('base64url');
}

async function body(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(value));
}

/** `echo` of this text expires every access token once it has answered: the next request of the session is refused. */
export const EXPIRE_AFTER = 'expire-after-this';

function mcpServer(calls: TestMcpOAuthServer['calls'], expire: () => void): McpServer {
  const server = new McpServer({ name: 'oauth-test', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echoes its text back',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => {
      calls.push({ name: 'echo', args: { text } });
      if (text === EXPIRE_AFTER) setImmediate(expire);
      return { content: [{ type: 'text', text: `oauth echo: ${text}` }] };
    },
  );
  return server;
}

export async function testMcpOAuthServer(options: McpOAuthServerOptions = {}): Promise<TestMcpOAuthServer> {
  const ttl = options.accessTtlSeconds ?? 3600;
  const clients = new Map<string, string[]>();
  const codes = new Map<string, Code>();
  const access = new Map<string, { expiresAt: number; revoked: boolean }>();
  const refresh = new Map<string, { clientId: string; revoked: boolean }>();
  const hits: Record<string, number> = {};
  const authorizations: (string | undefined)[] = [];
  const grants: string[] = [];
  const accessTokens: string[] = [];
  const refreshTokens: string[] = [];
  const calls: TestMcpOAuthServer['calls'] = [];
  let base = '';

  const issue = (clientId: string): Record<string, unknown> => {
    const token = `at-${randomUUID()}`;
    const rt = `rt-${randomUUID()}`;
    access.set(token, { expiresAt: Date.now() + ttl * 1000, revoked: false });
    refresh.set(rt, { clientId, revoked: false });
    accessTokens.push(token);
    refreshTokens.push(rt);
    return { access_token: token, token_type: 'Bearer', expires_in: ttl, refresh_token: rt };
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', base);
    hits[url.pathname] = (hits[url.pathname] ?? 0) + 1;
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
      json(res, 200, {
        resource: `${base}/mcp`,
        authorization_servers: [options.authorizationServer?.(base) ?? base],
      });
      return;
    }
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      const metadata = {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      };
      json(res, 200, options.metadata ? options.metadata(metadata, base) : metadata);
      return;
    }
    if (url.pathname === '/register' && req.method === 'POST') {
      const metadata = JSON.parse(await body(req)) as { redirect_uris: string[] };
      const clientId = `client-${randomUUID()}`;
      clients.set(clientId, metadata.redirect_uris);
      json(res, 201, {
        ...metadata,
        client_id: clientId,
        client_id_issued_at: Math.floor(Date.now() / 1000),
      });
      return;
    }
    if (url.pathname === '/authorize' && req.method === 'GET') {
      const p = url.searchParams;
      const clientId = p.get('client_id') ?? '';
      const redirectUri = p.get('redirect_uri') ?? '';
      if (!clients.get(clientId)?.includes(redirectUri) || p.get('code_challenge_method') !== 'S256') {
        json(res, 400, { error: 'invalid_request' });
        return;
      }
      const code = `code-${randomUUID()}`;
      codes.set(code, { clientId, challenge: p.get('code_challenge') ?? '', redirectUri });
      const target = new URL(redirectUri);
      target.searchParams.set('code', code);
      const state = p.get('state');
      if (state !== null) target.searchParams.set('state', state);
      res.writeHead(302, { location: target.href }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const p = new URLSearchParams(await body(req));
      const grant = p.get('grant_type') ?? '';
      grants.push(grant);
      if (grant === 'authorization_code') {
        const code = codes.get(p.get('code') ?? '');
        codes.delete(p.get('code') ?? '');
        const verifier = p.get('code_verifier') ?? '';
        const challenge = base64url(createHash('sha256').update(verifier).digest());
        if (
          !code ||
          code.clientId !== p.get('client_id') ||
          code.redirectUri !== p.get('redirect_uri') ||
          code.challenge !== challenge
        ) {
          json(res, 400, { error: 'invalid_grant' });
          return;
        }
        json(res, 200, issue(code.clientId));
        return;
      }
      if (grant === 'refresh_token') {
        const held = refresh.get(p.get('refresh_token') ?? '');
        if (!held || held.revoked || held.clientId !== p.get('client_id')) {
          json(res, 400, { error: 'invalid_grant', error_description: 'the refresh token is revoked' });
          return;
        }
        json(res, 200, issue(held.clientId));
        return;
      }
      json(res, 400, { error: 'unsupported_grant_type' });
      return;
    }
    if (url.pathname === '/mcp') {
      const header = req.headers.authorization;
      authorizations.push(header);
      const token = /^Bearer (\S+)$/.exec(header ?? '')?.[1];
      const held = token ? access.get(token) : undefined;
      if (!held || held.revoked || held.expiresAt <= Date.now()) {
        res.writeHead(401, {
          'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
          'content-type': 'text/plain',
        });
        res.end('unauthorized');
        return;
      }
      const server = mcpServer(calls, expireAccessTokens);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
      return;
    }
    res.writeHead(404).end('not found');
  };

  function expireAccessTokens(): void {
    for (const held of access.values()) held.expiresAt = 0;
  }

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500).end(error.message);
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/mcp`,
    base,
    hits,
    authorizations,
    grants,
    accessTokens,
    refreshTokens,
    calls,
    expireAccessTokens,
    revokeAll() {
      for (const held of access.values()) held.revoked = true;
      for (const held of refresh.values()) held.revoked = true;
    },
    async [Symbol.asyncDispose]() {
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

/** The person in the browser: opens the authorization URL (approved at once) and follows the redirect to Skate's callback. */
export async function approveInBrowser(authorizationUrl: string): Promise<{ status: number; text: string }> {
  const answer = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = answer.headers.get('location');
  if (!location)
    throw new Error(`the authorization endpoint answered ${answer.status}: ${await answer.text()}`);
  const callback = await fetch(location);
  return { status: callback.status, text: await callback.text() };
}
