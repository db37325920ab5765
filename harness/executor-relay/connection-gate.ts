import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How many connections a server holds, and how long one may take to say what it wants. */
export interface ConnectionLimits {
  /** Open connections at most, from every address together. */
  maxConnections: number;
  /** Open connections at most from one address. */
  maxConnectionsPerAddress: number;
  /**
   * A connection's first request must have sent its whole head (request line
   * and headers) within this long of connecting, or it is closed. node:http's
   * own `headersTimeout` starts only at the first header line, so a peer that
   * connects and sends nothing (or a request line alone) would be held forever.
   */
  headerTimeoutMs: number;
}

/** The defaults of both servers' `--max-connections`, `--max-connections-per-address`, `--header-timeout`. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 256,
  maxConnectionsPerAddress: 64,
  headerTimeoutMs: 10_000,
};

/** What the gate did, for a server's log (at most one line per few seconds). */
export type GateLog = (line: string) => void;

interface OpenConnection {
  readonly address: string;
  /** Set until the connection's first request arrives: then it is an engaged client, not a candidate for eviction. */
  firstRequest: NodeJS.Timeout | undefined;
  counted: boolean;
}

/** How often refusals are summed up in the log: a flood must not become a flood of log lines. */
const LOG_EVERY_MS = 5_000;

/**
 * Caps a server's connections, in total and per address, and closes every
 * connection whose first request has not arrived within the header timeout.
 * At a cap a new connection takes the place of the oldest one (from the same
 * address, at that cap) that has not sent a request yet: a half-open or slow
 * one, what a slowloris holds, so that peers which never send a request
 * cannot keep a client out. When every such connection is engaged the new one
 * is closed at once. Returns the count of open connections.
 */
export function gateConnections(
  server: Server,
  limits: ConnectionLimits,
  log?: GateLog,
  options: { forwardProxy?: boolean } = {},
): () => number {
  const open = new Map<Socket, OpenConnection>();
  const perAddress = new Map<string, number>();
  let refused = 0;
  let evicted = 0;
  let lastLog = 0;

  const report = (): void => {
    const now = Date.now();
    if (!log || refused + evicted === 0 || now - lastLog < LOG_EVERY_MS) return;
    lastLog = now;
    log(
      `connection limits: ${refused} refused, ${evicted} closed before their first request (${open.size} open; --max-connections ${limits.maxConnections}, --max-connections-per-address ${limits.maxConnectionsPerAddress})`,
    );
    refused = 0;
    evicted = 0;
  };

  const forget = (socket: Socket): void => {
    const entry = open.get(socket);
    if (!entry?.counted) return;
    entry.counted = false;
    clearTimeout(entry.firstRequest);
    open.delete(socket);
    const left = (perAddress.get(entry.address) ?? 1) - 1;
    if (left > 0) perAddress.set(entry.address, left);
    else perAddress.delete(entry.address);
  };

  /** Closes the oldest connection (from `address`, when given) that has not sent a request yet; false when none. */
  const evictOldestWaiting = (address?: string): boolean => {
    for (const [socket, entry] of open) {
      if (entry.firstRequest === undefined || (address !== undefined && entry.address !== address)) continue;
      forget(socket);
      socket.destroy();
      evicted++;
      return true;
    }
    return false;
  };

  server.on('connection', (socket: Socket) => {
    // A peer that resets the connection must not reach an unhandled 'error'.
    socket.on('error', () => socket.destroy());
    const address = socket.remoteAddress ?? 'unknown';
    const full =
      ((perAddress.get(address) ?? 0) >= limits.maxConnectionsPerAddress && !evictOldestWaiting(address)) ||
      (open.size >= limits.maxConnections && !evictOldestWaiting());
    if (full) {
      refused++;
      socket.destroy();
      report();
      return;
    }
    report();
    const entry: OpenConnection = { address, firstRequest: undefined, counted: true };
    entry.firstRequest = setTimeout(() => {
      evicted++;
      socket.destroy();
      report();
    }, limits.headerTimeoutMs);
    entry.firstRequest.unref();
    open.set(socket, entry);
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    socket.once('close', () => forget(socket));
  });

  const engaged = (socket: Socket): void => {
    const entry = open.get(socket);
    if (entry?.firstRequest === undefined) return;
    clearTimeout(entry.firstRequest);
    entry.firstRequest = undefined;
  };
  server.on('request', (request: { socket: Socket }) => engaged(request.socket));
  server.on('upgrade', (request: { socket: Socket }) => engaged(request.socket));
  // A forward proxy's CONNECT is its first request too. Only there: a 'connect' listener makes
  // node:http hand CONNECT sockets over instead of closing them.
  if (options.forwardProxy) server.on('connect', (request: { socket: Socket }) => engaged(request.socket));
  return () => open.size;
}
