import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerCheck } from '../executor-relay/bearer-token.js';
import {
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  gateConnections,
} from '../executor-relay/connection-gate.js';
import { hostCheck, isLoopbackHost, quotedHost } from '../executor-relay/host-check.js';
import { Cors } from './cors.js';
import { sendError } from './http-io.js';
import { openApiDocument } from './openapi-document.js';
import { compileRoutes, matchRoute } from './route-table.js';
import { ServeError } from './serve-error.js';
import { serveRoutes } from './serve-routes.js';
import type { ServeState } from './serve-state.js';

export interface ServeHttpOptions {
  host: string;
  port: number;
  /** Every request must carry `Authorization: Bearer <token>`. */
  token: string;
  state: ServeState;
  maxBodyBytes: number;
  /** Origins allowed cross-origin access (`--cors`); none by default. */
  corsOrigins?: readonly string[];
  /** Connections held at most, and how soon each must send its first request. */
  limits?: Partial<ServeHttpLimits>;
  /** Host names besides IP literals and `localhost` a loopback server answers to (`--allow-host`). */
  allowedHosts?: readonly string[];
  version: string;
  onLog?(line: string): void;
}

/** `ConnectionLimits`, and how long a request's body may take to arrive (`--request-timeout`). */
export interface ServeHttpLimits extends ConnectionLimits {
  requestTimeoutMs: number;
}

export const DEFAULT_SERVE_HTTP_LIMITS: ServeHttpLimits = {
  ...DEFAULT_CONNECTION_LIMITS,
  requestTimeoutMs: 60_000,
};

export interface RunningServeHttp {
  readonly url: string;
  /** Open TCP connections, authorized or not. */
  connectionCount(): number;
  /**
   * Stops taking requests, interrupts every run, lets the streams send their
   * results, closes every session (executors stopped, logs flushed) and the
   * remaining connections.
   */
  close(): Promise<void>;
}

/**
 * `skate serve`'s HTTP server: plain `node:http` and a small route table (no
 * framework: a dozen routes, and SSE is a response left open). The Host is
 * checked first (DNS rebinding), then the token, before the route, the body or
 * any session is touched. Connections are capped and timed
 * (`gateConnections`); a refused token closes its connection.
 */
export async function startServeHttp(options: ServeHttpOptions): Promise<RunningServeHttp> {
  const limits: ServeHttpLimits = { ...DEFAULT_SERVE_HTTP_LIMITS, ...options.limits };
  const authorized = bearerCheck(options.token);
  const hostAllowed = hostCheck(options.host, options.allowedHosts ?? []);
  let document: Record<string, unknown> | undefined;
  const routes = serveRoutes({
    state: options.state,
    maxBodyBytes: options.maxBodyBytes,
    openApi: () => {
      document ??= openApiDocument(routes, options.version);
      return document;
    },
  });
  const compiled = compileRoutes(routes);
  const cors = new Cors(options.corsOrigins ?? []);
  let closing = false;

  const server: Server = createServer(
    // node:http checks its header and request timeouts this often (30 s by default: a timeout of 10 s could take 40).
    { maxHeaderSize: 16 * 1024, connectionsCheckingInterval: 1_000 },
    (request, response) => {
      const handle = async (): Promise<void> => {
        if (!hostAllowed(request.headers.host)) {
          throw new ServeError(
            'host_not_allowed',
            `${quotedHost(request.headers.host)} is not a name of this server: it answers IP addresses${isLoopbackHost(options.host) ? ', localhost' : ''} and the names given with --allow-host`,
          );
        }
        cors.decorate(request, response);
        if (cors.preflight(request, response)) return;
        if (!authorized(request.headers.authorization)) {
          throw new ServeError('unauthorized', 'send the server\'s token as "Authorization: Bearer <token>"');
        }
        if (closing) throw new ServeError('shutting_down', 'the server is shutting down');
        const url = new URL(request.url ?? '/', 'http://localhost');
        const { route, params } = matchRoute(compiled, request.method ?? 'GET', url.pathname);
        await route.handle({ request, response, params, url });
      };
      handle().catch((error: unknown) => {
        const failure = ServeError.fromUnknown(error);
        if (failure.status >= 500) options.onLog?.(`${request.method} ${request.url}: ${failure.message}`);
        // A peer without the token gets its answer and nothing more: no keep-alive connection to hold.
        if (failure.code === 'unauthorized' || failure.code === 'host_not_allowed') {
          response.setHeader('connection', 'close');
        }
        sendError(
          response,
          new ServeError(failure.code, options.state.publicMessage(failure.message)),
          request,
        );
      });
    },
  );
  // The request (head and body) must arrive in time; the response is not timed: a stream may stay
  // quiet for long (a tool running), and its heartbeat keeps it open.
  server.headersTimeout = limits.headerTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.maxHeadersCount = 64;
  // Longer than the usual client and proxy idle timeouts, so the server is not the side that closes an
  // idle keep-alive connection just as a client sends on it (a reset POST the client cannot retry).
  server.keepAliveTimeout = 65_000;
  const connectionCount = gateConnections(server, limits, options.onLog);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    connectionCount,
    async close() {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await options.state.shutdown();
      // Streams have written their results and ended; whatever is still open is cut.
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 1_000).unref();
      await closed;
    },
  };
}
