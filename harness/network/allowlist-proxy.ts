import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import { judgeHost, type NetworkDenialReason } from '../../shared/network-allowlist.js';
import { addressNeedsExplicitPort, type HostPattern, normalizeHost } from '../../shared/network-pattern.js';
import { gateConnections } from '../executor-relay/connection-gate.js';
import { scanClientHello } from './client-hello-sni.js';
import type { NetworkGate } from './network-gate.js';
import { type SpliceRelay, startSpliceRelay, type TunnelOwed } from './splice-relay.js';

/** How much the proxy holds and how long it waits: it runs in the harness, so a sandbox must not be able to exhaust it. */
export interface ProxyLimits {
  /** Open client connections at most (a tunnel counts as one). */
  maxConnections: number;
  /** A client's request head, or its TLS ClientHello, must arrive within this long. */
  headerTimeoutMs: number;
  /** An upstream must accept the connection within this long. */
  connectTimeoutMs: number;
  /** A connection or tunnel quiet for this long is closed. */
  idleTimeoutMs: number;
  /** Largest request head accepted. */
  maxHeaderBytes: number;
}

export const DEFAULT_PROXY_LIMITS: ProxyLimits = {
  maxConnections: 256,
  headerTimeoutMs: 10_000,
  connectTimeoutMs: 10_000,
  idleTimeoutMs: 10 * 60_000,
  maxHeaderBytes: 16 * 1024,
};

/** Resolves a host name to addresses; the proxy's own resolver, never one inside the sandbox. */
export type ProxyLookup = (host: string) => Promise<string[]>;

export interface AllowlistProxyOptions {
  /** The list in force (read at each request) and where refusals go. */
  gate: NetworkGate;
  /** Default: the host's resolver (`getaddrinfo`, so `/etc/hosts` too). Tests point names at loopback servers. */
  lookup?: ProxyLookup;
  /**
   * Where a connection to an allowed, resolved address really goes; default there. Tests point
   * addresses at loopback servers after every check has run on the address the name resolved to.
   */
  dial?: (address: string, port: number) => { address: string; port: number };
  limits?: Partial<ProxyLimits>;
  /**
   * Where the relay listens for the sandbox's forwarder (a path beside the proxy's socket): each
   * connection the forwarder accepted comes whole, and the proxy reads the client's own socket.
   */
  handoffPath?: string;
}

export interface AllowlistProxy {
  /** Open client connections. */
  connections(): number;
  /** Stops listening and closes every connection and tunnel. */
  close(): Promise<void>;
}

const defaultLookup: ProxyLookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

const ESTABLISHED = Buffer.from('HTTP/1.1 200 Connection Established\r\n\r\n', 'latin1');

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

type Reached =
  | { ok: true; host: string; port: number; address: string; pattern: HostPattern }
  | { ok: false; host: string; port: number; reason: NetworkDenialReason };

/**
 * The one way out of a sandbox under an allowlist (issue #21): an HTTP forward proxy on a unix
 * socket that the sandbox gets bound in. Plain `http://` requests are judged one by one and
 * forwarded; `CONNECT` opens a tunnel to an allowed host and, to a web port, only once the TLS
 * ClientHello's server name is that host. Names are resolved here, and a name that resolves to a
 * loopback or link-local address is refused unless its pattern names the port. Every refusal is
 * answered with 403 and told to the gate.
 */
export async function startAllowlistProxy(
  socketPath: string,
  options: AllowlistProxyOptions,
): Promise<AllowlistProxy> {
  const limits = { ...DEFAULT_PROXY_LIMITS, ...options.limits };
  const lookup = options.lookup ?? defaultLookup;
  const { gate } = options;
  const tunnels = new Set<net.Socket>();
  const server = http.createServer({
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: 0,
    keepAliveTimeout: 5_000,
  });
  // Admitted tunnels are joined in the kernel by a helper; without it (no native build) here.
  // Connections passed out of the sandbox through it are served as if accepted on the socket.
  const relayStarting = startSpliceRelay({
    idleTimeoutMs: limits.idleTimeoutMs,
    connectTimeoutMs: limits.connectTimeoutMs,
    ...(options.handoffPath !== undefined && {
      handoff: { path: options.handoffPath, onClient: (client) => server.emit('connection', client) },
    }),
  });
  // Set once both are up (below); until then an admitted tunnel is joined here.
  let relay: SpliceRelay | undefined;

  const deny = (host: string, port: number, reason: NetworkDenialReason): Reached => {
    gate.denied({ host: host.slice(0, 256), port, reason, at: new Date().toISOString() });
    return { ok: false, host, port, reason };
  };

  /** Judges `host:port` against the list and resolves it; refusals are recorded. */
  const reach = async (rawHost: string, port: number): Promise<Reached> => {
    let verdict = judgeHost(gate.rules(), rawHost, port);
    if (!verdict.allowed && verdict.reason === 'not_allowed') {
      // With someone to ask, a host off the list is a question; the connection waits for it.
      const grant = await gate.consult(rawHost, port);
      if (grant) verdict = judgeHost({ allow: [grant], deny: gate.rules().deny }, rawHost, port);
    }
    if (!verdict.allowed) return deny(rawHost, port, verdict.reason);
    const { host, pattern } = verdict;
    if (verdict.ip) return { ok: true, host, port, address: host, pattern };
    let addresses: string[];
    try {
      addresses = await lookup(host);
    } catch {
      return deny(host, port, 'unreachable');
    }
    const usable = addresses.filter((a) => pattern.port !== undefined || !addressNeedsExplicitPort(a));
    if (usable.length === 0) return deny(host, port, addresses.length > 0 ? 'local_address' : 'unreachable');
    return { ok: true, host, port, address: usable[0]!, pattern };
  };

  const dial = options.dial ?? ((address: string, port: number) => ({ address, port }));
  const connectUpstream = (address: string, port: number): Promise<net.Socket> =>
    new Promise((resolve, reject) => {
      const target = dial(address, port);
      const socket = net.connect({ host: target.address, port: target.port });
      // Read nothing here: the tunnel's bytes are the relay's (a paused socket never starts reading).
      socket.pause();
      const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), limits.connectTimeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeListener('error', reject);
        resolve(socket);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });

  /**
   * Opens an admitted tunnel to `address:port` (checked, resolved): the relay connects and joins
   * the sockets in the kernel when it can take the client, else it is done here. Either way the
   * upstream sees nothing before this call, and `owed` is said first.
   */
  const openTunnel = async (
    client: net.Socket,
    address: string,
    port: number,
    owed: TunnelOwed,
  ): Promise<void> => {
    client.setNoDelay(true);
    if (relay?.hand(client, dial(address, port), owed)) return;
    let upstream: net.Socket;
    try {
      upstream = await connectUpstream(address, port);
    } catch {
      if (owed.badGateway) client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
      else client.destroy();
      return;
    }
    if (owed.reply) client.write(ESTABLISHED);
    joinHere(client, upstream, owed.toUpstream);
  };

  /** Joins two sockets in this process until either ends, errs or idles (no relay to take them). */
  const joinHere = (client: net.Socket, upstream: net.Socket, toUpstream: Buffer): void => {
    upstream.setNoDelay(true);
    if (toUpstream.length > 0) upstream.write(toUpstream);
    tunnels.add(upstream);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
      socket.setTimeout(limits.idleTimeoutMs, end);
    }
    upstream.once('close', () => tunnels.delete(upstream));
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const refusalBody = (reached: Extract<Reached, { ok: false }>): string =>
    `Skate refused ${reached.host}:${reached.port} (${reached.reason}): this sandbox reaches only the hosts its network allowlist names.\n`;
  const refusal = (reached: Extract<Reached, { ok: false }>): string => {
    const body = refusalBody(reached);
    return [
      'HTTP/1.1 403 Forbidden',
      'Content-Type: text/plain; charset=utf-8',
      `X-Skate-Network: denied; reason=${reached.reason}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n');
  };

  server.setTimeout(limits.idleTimeoutMs);
  const connections = gateConnections(
    server,
    {
      maxConnections: limits.maxConnections,
      // Every client comes through the one socket: the total is the cap.
      maxConnectionsPerAddress: limits.maxConnections,
      headerTimeoutMs: limits.headerTimeoutMs,
    },
    undefined,
    { forwardProxy: true },
  );
  server.on('clientError', (_error, socket) => socket.destroy());

  // Plain http:// requests, each judged on its own: keep-alive cannot carry a second host past the check.
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const refuse = (reached: Extract<Reached, { ok: false }>): void => {
      const body = refusalBody(reached);
      response.writeHead(403, {
        'Content-Type': 'text/plain; charset=utf-8',
        'X-Skate-Network': `denied; reason=${reached.reason}`,
        'Content-Length': Buffer.byteLength(body),
        Connection: 'close',
      });
      response.end(body);
    };
    const target = absoluteHttpUrl(request.url);
    if (!target) {
      const reached = deny(request.headers.host ?? '', 0, 'bad_request');
      if (!reached.ok) refuse(reached);
      return;
    }
    void reach(target.hostname, target.port).then((reached) => {
      if (!reached.ok) {
        refuse(reached);
        return;
      }
      const headers: string[] = [];
      for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
        const name = request.rawHeaders[i]!;
        const lower = name.toLowerCase();
        if (!HOP_BY_HOP.has(lower) && lower !== 'host') headers.push(name, request.rawHeaders[i + 1]!);
      }
      headers.push('Host', target.host, 'Connection', 'close');
      const dialed = dial(reached.address, reached.port);
      const upstream = http.request({
        host: dialed.address,
        port: dialed.port,
        method: request.method,
        path: target.path,
        headers,
        setHost: false,
        agent: false,
        timeout: limits.connectTimeoutMs,
      });
      upstream.on('timeout', () => upstream.destroy(new Error('upstream timeout')));
      upstream.on('error', () => {
        if (!response.headersSent) {
          response.writeHead(502, { 'Content-Type': 'text/plain', Connection: 'close' });
          response.end(`Skate's proxy could not reach ${reached.host}:${reached.port}\n`);
        } else response.destroy();
      });
      upstream.on('response', (answer) => {
        upstream.setTimeout(limits.idleTimeoutMs);
        const back: string[] = [];
        for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
          const name = answer.rawHeaders[i]!;
          if (!HOP_BY_HOP.has(name.toLowerCase())) back.push(name, answer.rawHeaders[i + 1]!);
        }
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, back);
        answer.pipe(response);
        answer.on('error', () => response.destroy());
      });
      request.pipe(upstream);
      request.on('error', () => upstream.destroy());
      // A client gone mid-answer (an event stream it stopped reading, an executor that exited) frees the upstream.
      response.on('close', () => upstream.destroy());
    });
  });

  // A WebSocket (or any Upgrade) over plain HTTP: judged like a request, then a tunnel to that host.
  server.on('upgrade', (request: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const target = absoluteHttpUrl(request.url);
    if (!target) {
      const reached = deny(request.headers.host ?? '', 0, 'bad_request');
      if (!reached.ok) socket.end(refusal(reached));
      return;
    }
    void reach(target.hostname, target.port).then(async (reached) => {
      if (!reached.ok) {
        socket.end(refusal(reached));
        return;
      }
      const lines = [`${request.method} ${target.path} HTTP/${request.httpVersion}`];
      for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
        const lower = request.rawHeaders[i]!.toLowerCase();
        if (lower === 'host' || lower === 'proxy-connection' || lower === 'proxy-authorization') continue;
        lines.push(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}`);
      }
      lines.push(`Host: ${target.host}`, '', '');
      await openTunnel(socket, reached.address, reached.port, {
        reply: false,
        badGateway: true,
        toUpstream: Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), head]),
      });
    });
  });

  server.on('connect', (request: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const target = connectTarget(request.url);
    if (!target) {
      const reached = deny(request.url?.slice(0, 256) ?? '', 0, 'invalid_host');
      if (!reached.ok) socket.end(refusal(reached));
      return;
    }
    void tunnel(socket, head, target.host, target.port);
  });

  const tunnel = async (socket: net.Socket, head: Buffer, rawHost: string, port: number): Promise<void> => {
    const reached = await reach(rawHost, port);
    if (!reached.ok) {
      socket.end(refusal(reached));
      return;
    }
    // A service named by its port (`localhost:5432`) may speak first or not speak TLS: connect at
    // once, and say `200` once connected.
    if (reached.pattern.port !== undefined) {
      await openTunnel(socket, reached.address, port, { reply: true, badGateway: true, toUpstream: head });
      return;
    }
    // A web port: the tunnel must carry TLS to the very host the CONNECT named, checked before
    // the upstream sees a single packet.
    socket.write(ESTABLISHED);
    const hello = await readClientHello(socket, head, limits.headerTimeoutMs);
    if (hello === undefined) return;
    const sni = hello.scan.kind === 'hello' ? hello.scan.serverName : undefined;
    const named = sni === undefined ? undefined : normalizeHost(sni);
    const matches =
      hello.scan.kind === 'hello' &&
      (sni === undefined
        ? normalizeHost(rawHost)?.ip === true
        : named !== undefined && named.host === reached.host);
    if (!matches) {
      deny(
        sni === undefined ? reached.host : sni,
        port,
        hello.scan.kind === 'hello' ? 'sni_mismatch' : 'bad_request',
      );
      socket.destroy();
      return;
    }
    await openTunnel(socket, reached.address, port, {
      reply: false,
      badGateway: false,
      toUpstream: hello.bytes,
    });
  };

  const listening = new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  try {
    [relay] = await Promise.all([relayStarting, listening]);
  } catch (error) {
    await (await relayStarting)?.close();
    throw error;
  }
  server.on('error', () => undefined);

  return {
    connections,
    close: async () => {
      // First: the tunnels the relay holds end, and the server's close need not ask it about them.
      await relay?.close();
      await new Promise<void>((resolve) => {
        for (const upstream of tunnels) upstream.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The bytes of the tunnel's TLS ClientHello and what they say, or undefined when the client went away or stalled. */
function readClientHello(
  socket: net.Socket,
  head: Buffer,
  timeoutMs: number,
): Promise<{ bytes: Buffer; scan: ReturnType<typeof scanClientHello> } | undefined> {
  return new Promise((resolve) => {
    let bytes = head;
    const finish = (
      result: { bytes: Buffer; scan: ReturnType<typeof scanClientHello> } | undefined,
    ): void => {
      clearTimeout(timer);
      socket.removeListener('data', onData);
      socket.removeListener('close', onClose);
      socket.pause();
      if (result === undefined) socket.destroy();
      resolve(result);
    };
    const check = (): void => {
      const scan = scanClientHello(bytes);
      if (scan.kind !== 'partial') finish({ bytes, scan });
    };
    const onData = (chunk: Buffer): void => {
      bytes = Buffer.concat([bytes, chunk]);
      check();
    };
    const onClose = (): void => finish(undefined);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.on('data', onData);
    socket.once('close', onClose);
    if (bytes.length > 0) check();
  });
}

/** `http://host[:port]/path` as a forward proxy receives it; undefined for anything else. */
function absoluteHttpUrl(
  raw: string | undefined,
): { hostname: string; port: number; host: string; path: string } | undefined {
  if (!raw?.toLowerCase().startsWith('http://')) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  return {
    hostname: url.hostname,
    port: url.port ? Number(url.port) : 80,
    host: url.host,
    path: `${url.pathname}${url.search}`,
  };
}

/** `host:port` or `[v6]:port` of a CONNECT; undefined when malformed. */
function connectTarget(raw: string | undefined): { host: string; port: number } | undefined {
  if (!raw || raw.length > 300) return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(raw);
  if (!match) return undefined;
  const port = Number(match[2]);
  return port >= 1 && port <= 65_535 ? { host: match[1]!, port } : undefined;
}
