/** Loopback stand-ins for hosts on the internet, and what /proc says of the proxy's relay: for the network allowlist's tests (issue #21). */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

/** A loopback server standing for one host on the internet: it counts who reached it and what they sent. */
export interface Upstream {
  port: number;
  connections: number;
  /** The first bytes of each connection, as latin1. */
  received: string[];
  close(): Promise<void>;
}

/** A TCP host that records each connection's first bytes and closes it after 300 ms. */
export async function rawUpstream(): Promise<Upstream> {
  const server = net.createServer((socket) => {
    upstream.connections++;
    socket.once('data', (chunk) => upstream.received.push(chunk.toString('latin1')));
    socket.on('error', () => socket.destroy());
    setTimeout(() => socket.destroy(), 300).unref();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const upstream: Upstream = {
    port: (server.address() as AddressInfo).port,
    connections: 0,
    received: [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return upstream;
}

/** An HTTP host: `/` says hello, `/redirect` sends the client to a refused host, upgrades echo. */
export async function httpUpstream(): Promise<Upstream> {
  const server = http.createServer((request, response) => {
    upstream.received.push(`${request.method} ${request.url} host=${request.headers.host}`);
    if (request.url === '/redirect') {
      response.writeHead(302, { Location: 'http://refused.test/' });
      response.end();
      return;
    }
    response.end('hello from allowed.test\n');
  });
  server.on('connection', () => upstream.connections++);
  const upgraded = new Set<import('node:stream').Duplex>();
  server.on('upgrade', (request, socket) => {
    upgraded.add(socket);
    upstream.received.push(`UPGRADE ${request.url}`);
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    socket.on('data', (chunk) => socket.write(chunk));
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const upstream: Upstream = {
    port: (server.address() as AddressInfo).port,
    connections: 0,
    received: [],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        for (const socket of upgraded) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return upstream;
}

/** A loopback HTTP host that answers `reached` and records the path of each request that reached it. */
export interface HitTarget extends AsyncDisposable {
  port: number;
  hits: string[];
  /** A shell command fetching `/name` through the sandbox's proxy (`$HTTP_PROXY`), never straight to the host. */
  curlViaProxy(name: string): string;
}

export async function hitTarget(): Promise<HitTarget> {
  const hits: string[] = [];
  const server = http.createServer((request, response) => {
    hits.push(request.url ?? '');
    response.end('reached\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    hits,
    curlViaProxy: (name) =>
      `curl -sS --max-time 60 --noproxy '' -x "$HTTP_PROXY" http://127.0.0.1:${port}/${name}`,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Pids of this process's splice relays (`skate-confine --splice-channel`). */
export function spliceHelpers(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return (
          readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('--splice-channel') &&
          parentOf(pid) === process.pid
        );
      } catch {
        return false;
      }
    });
}

export function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Sockets a process holds (its channel to the harness and its tunnels' two sides). */
export function socketsOf(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
}

/** Inodes of the host's TCP connections whose far end is loopback port `port` (the host's own table). */
export function tcpInodesTo(port: number): string[] {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'latin1')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[2] === `0100007F:${hex}` && fields[3] === '01')
    .map((fields) => fields[9]!);
}

/** Pids of every process holding socket `inode` (as far as /proc lets this process see). */
export function holdersOf(inode: string): number[] {
  const holders: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${name}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${name}/fd/${fd}`) === `socket:[${inode}]`) {
          holders.push(Number(name));
          break;
        }
      } catch {
        // gone meanwhile
      }
    }
  }
  return holders;
}
