import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { type ExecutorProcess, startExecutorProcess } from '../executor-client/executor-process.js';
import type { ExecutorLauncher } from '../sandbox/executor-launch.js';
import { bearerCheck } from './bearer-token.js';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS, gateConnections } from './connection-gate.js';
import { hostCheck, quotedHost } from './host-check.js';

/** What `skate executor serve` holds at most: connections (`ConnectionLimits`) and executors. */
export interface RelayLimits extends ConnectionLimits {
  /** Executors running (or starting) at once, one per authorized connection (`--max-executors`). */
  maxExecutors: number;
}

export const DEFAULT_RELAY_LIMITS: RelayLimits = { ...DEFAULT_CONNECTION_LIMITS, maxExecutors: 16 };

export interface ExecutorServerOptions {
  host: string;
  port: number;
  /** Shared secret a harness presents as `Authorization: Bearer <token>`. */
  token: string;
  policy: ResolvedPolicy;
  launcher?: ExecutorLauncher;
  /** The largest WebSocket message taken from a peer (and frame relayed either way). */
  maxFrameBytes: number;
  limits?: Partial<RelayLimits>;
  /** Host names besides IP literals and `localhost` a loopback server answers to (`--allow-host`). */
  allowedHosts?: readonly string[];
  onLog?(line: string): void;
}

export interface RunningExecutorServer {
  readonly url: string;
  /** Host pids of the executors serving open connections (their sandboxes' outermost process). */
  executorPids(): number[];
  /** Open TCP connections, authorized or not. */
  connectionCount(): number;
  close(): Promise<void>;
}

/** A peer that answers no ping within this long is gone (a half-open connection): its executor is stopped. */
const PING_INTERVAL_MS = 30_000;
/** Frames towards a peer that reads slowly: past this the executor's output is paused until it catches up. */
const SEND_HIGH_WATER_BYTES = 4 * 1024 * 1024;

function reject(socket: Duplex, status: number, text: string, extra = ''): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\n${extra}Content-Length: 0\r\n\r\n`);
}

/**
 * Serves executors to remote harnesses over WebSocket. The token is checked
 * here, outside the sandbox, before any executor exists; each connection then
 * gets its own executor process, started under the policy exactly as a local
 * harness would start it, and frames are relayed between the two. The token
 * never reaches an executor. Nothing a peer sends, with or without the
 * token, can take the server down or grow it without bound: connections are
 * capped and timed (`gateConnections`), WebSocket messages are capped at
 * `maxFrameBytes` and checked (a bad one closes that connection only),
 * executors are capped, and both directions wait for the slower side instead
 * of buffering.
 */
export async function serveExecutors(options: ExecutorServerOptions): Promise<RunningExecutorServer> {
  const limits: RelayLimits = { ...DEFAULT_RELAY_LIMITS, ...options.limits };
  const authorized = bearerCheck(options.token);
  const hostAllowed = hostCheck(options.host, options.allowedHosts ?? []);
  const http: Server = createServer(
    {
      maxHeaderSize: 16 * 1024,
      headersTimeout: limits.headerTimeoutMs,
      // An upgrade request has no body: the head is all there is to wait for (node:http wants this >= the above).
      requestTimeout: Math.max(limits.headerTimeoutMs, 30_000),
      // How often node:http checks those timeouts (30 s by default).
      connectionsCheckingInterval: 1_000,
    },
    (_request, response) => {
      response
        .writeHead(426, { 'content-type': 'text/plain', connection: 'close' })
        .end('a Skate executor: connect with WebSocket\n');
    },
  );
  http.maxHeadersCount = 64;
  const log = (line: string) => options.onLog?.(line);
  const connectionCount = gateConnections(http, limits, log);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxFrameBytes,
    perMessageDeflate: false,
  });
  const live = new Set<number>();
  /** Executors starting or running: what `maxExecutors` counts. */
  let executors = 0;

  http.on('upgrade', (request, socket, head) => {
    // node:http hands an upgraded socket over without its error listener.
    socket.on('error', () => socket.destroy());
    const peer = request.socket.remoteAddress;
    if (!hostAllowed(request.headers.host)) {
      log(`refused ${peer}: ${quotedHost(request.headers.host)} is not this server's (--allow-host)`);
      reject(socket, 403, 'Forbidden');
      return;
    }
    if (!authorized(request.headers.authorization)) {
      log(`refused ${peer}: bad or missing token`);
      reject(socket, 401, 'Unauthorized');
      return;
    }
    if (executors >= limits.maxExecutors) {
      log(`refused ${peer}: ${executors} executors running (--max-executors ${limits.maxExecutors})`);
      reject(socket, 503, 'Service Unavailable', 'Retry-After: 5\r\n');
      return;
    }
    executors++;
    let counted = true;
    const release = () => {
      if (counted) executors--;
      counted = false;
    };
    let upgraded = false;
    wss.handleUpgrade(request, socket, head, (ws) => {
      upgraded = true;
      relay(ws, peer, release);
    });
    // A handshake ws refused (a bad key or version) ends the socket without calling back.
    socket.once('close', () => {
      if (!upgraded) release();
    });
  });

  /** One connection: its executor, and frames both ways, each side waiting for the other. */
  const relay = (ws: WebSocket, peer: string | undefined, release: () => void): void => {
    log(`connection from ${peer}`);
    ws.on('error', (error) => log(`connection from ${peer}: ${error.message}; closed`));
    let alive = true;
    const ping = setInterval(() => {
      if (!alive) {
        log(`connection from ${peer}: no answer to a ping; closed`);
        ws.terminate();
        return;
      }
      alive = false;
      ws.ping();
    }, PING_INTERVAL_MS);
    ping.unref();
    ws.on('pong', () => {
      alive = true;
    });
    // Until the sandbox is up nothing is read from the peer: TCP holds what it sends, not this process.
    ws.pause();
    let executor: ExecutorProcess | undefined;
    const early: string[] = [];
    const toExecutor = (frame: string): void => {
      executor!.channel.send(frame);
      const input = executor!.child.stdin;
      if (input?.writableNeedDrain && !ws.isPaused) {
        ws.pause();
        input.once('drain', () => ws.resume());
      }
    };
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      // Frames are one per line towards the executor; JSON never needs a raw newline.
      const frame = data.toString().replace(/[\r\n]/g, ' ');
      if (executor) toExecutor(frame);
      else early.push(frame);
    });
    const toPeer = (text: string): void => {
      if (ws.readyState !== ws.OPEN) return;
      const output = executor?.child.stdout;
      ws.send(text, () => {
        if (output?.isPaused() && ws.bufferedAmount < SEND_HIGH_WATER_BYTES / 2) output.resume();
      });
      if (ws.bufferedAmount > SEND_HIGH_WATER_BYTES) output?.pause();
    };
    const stopped = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    void stopped.then(() => clearInterval(ping));
    void startExecutorProcess(
      {
        policy: options.policy,
        maxFrameBytes: options.maxFrameBytes,
        ...(options.launcher && { launcher: options.launcher }),
        onLog: (line) => log(`[executor] ${line}`),
      },
      { frame: toPeer },
    ).then(
      (started) => {
        executor = started;
        const pid = started.child.pid;
        if (pid !== undefined) live.add(pid);
        const stop = () => {
          started.channel.close();
          setTimeout(() => started.child.kill('SIGKILL'), 3_000).unref();
        };
        void stopped.then(stop);
        void started.exited.then((exit) => {
          if (pid !== undefined) live.delete(pid);
          release();
          log(`executor for ${peer} ended: ${exit.reason}`);
          ws.close(1011, 'executor exited');
        });
        for (const frame of early.splice(0)) toExecutor(frame);
        if (ws.readyState === ws.OPEN && !started.child.stdin?.writableNeedDrain) ws.resume();
      },
      (error: Error) => {
        release();
        log(`cannot start an executor for ${peer}: ${error.message}`);
        ws.close(1011, 'executor failed to start');
      },
    );
  };

  await new Promise<void>((resolve, reject_) => {
    http.once('error', reject_);
    http.listen(options.port, options.host, resolve);
  });
  const address = http.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `ws://${host}:${address.port}`,
    executorPids: () => [...live],
    connectionCount,
    async close() {
      for (const client of wss.clients) client.terminate();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}
