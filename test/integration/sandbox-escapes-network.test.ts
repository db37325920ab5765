import { randomBytes } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { mkdir, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { release } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { hostDir } from '../support/host-dir.js';
import { testPolicy } from '../support/policies.js';
import { type SandboxedExecutor, sandboxedExecutor } from '../support/sandboxed-executor.js';
import type { TempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
/** Landlock scopes abstract unix sockets from ABI 6, which came with Linux 6.12. */
const [major = 0, minor = 0] = release().split('.').map(Number);
const noAbstractScope =
  major * 1000 + minor < 6012 ? `Linux ${release()} has no Landlock socket scoping (6.12+)` : undefined;
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

/** Run inside the sandbox: one connection attempt, reported as CONNECTED or ERR <code>. */
const PROBE = `
const [kind, target, port] = process.argv.slice(2);
if (kind === 'dns') {
  const { Resolver } = require('node:dns').promises;
  const resolver = new Resolver({ timeout: 400, tries: 1 });
  resolver.setServers(['127.0.0.1:' + port]);
  resolver.resolve4(target).then((a) => console.log('RESOLVED', a), (e) => console.log('ERR', e.code));
} else {
  const options = kind === 'tcp' ? { host: target, port: Number(port) } : { path: kind === 'abstract' ? '\\0' + target : target };
  const socket = require('node:net').connect(options);
  socket.setTimeout(2000, () => { console.log('ERR TIMEOUT'); socket.destroy(); });
  socket.on('connect', () => { console.log('CONNECTED'); socket.end(); });
  socket.on('error', (e) => console.log('ERR', e.code));
}
`;

/** A listening server on the host that counts who got through. */
interface Listener {
  server: Server;
  connections: number;
}

async function listen(where: { port: number; host: string } | { path: string }): Promise<Listener> {
  const listener: Listener = { server: createServer(), connections: 0 };
  listener.server.on('connection', (socket) => {
    listener.connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.server.listen(where, resolve));
  return listener;
}

describe.skipIf(noSandbox)('sandbox escapes: the network', () => {
  let root: TempDir;
  let ws: string;
  let tcp: Listener;
  let unix: Listener;
  let abstract: Listener;
  let dns: { socket: UdpSocket; port: number; queries: number };
  const abstractName = `skate-test-${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    root = await hostDir();
    ws = path.join(root.path, 'ws');
    await mkdir(path.join(ws, 'run'), { recursive: true });
    await writeFile(path.join(ws, 'probe.cjs'), PROBE);
    tcp = await listen({ port: 0, host: '127.0.0.1' });
    // Exist before any executor starts: the sandbox's scan finds and masks them.
    unix = await listen({ path: path.join(ws, 'run', 'host.sock') });
    abstract = await listen({ path: `\0${abstractName}` });
    const socket = createSocket('udp4');
    dns = { socket, port: 0, queries: 0 };
    socket.on('message', () => dns.queries++);
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    dns.port = (socket.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const listener of [tcp, unix, abstract]) listener?.server.close();
    dns?.socket.close();
    await root?.[Symbol.asyncDispose]();
  });

  async function probe(executor: SandboxedExecutor, ...args: string[]): Promise<string> {
    return (await executor.sh(`${process.execPath} probe.cjs ${args.join(' ')}`)).output.trim();
  }

  describe('with the network off', () => {
    let executor: SandboxedExecutor;
    beforeAll(async () => {
      executor = await sandboxedExecutor(testPolicy(ws));
    });
    afterAll(async () => executor?.[Symbol.asyncDispose]());

    it('cannot open a TCP connection to a server on the host loopback', async () => {
      const port = (tcp.server.address() as AddressInfo).port;
      const before = tcp.connections;
      expect(await probe(executor, 'tcp', '127.0.0.1', String(port))).toMatch(/^ERR/);
      expect(
        (await executor.sh(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED`)).output,
      ).not.toContain('CONNECTED');
      expect(tcp.connections).toBe(before);
    });

    it('cannot reach a DNS server', async () => {
      const before = dns.queries;
      expect(await probe(executor, 'dns', 'example.com', String(dns.port))).toMatch(/^ERR/);
      expect(dns.queries).toBe(before);
    });

    it('cannot connect to a host unix socket, by path or in the abstract namespace', async () => {
      const [unixBefore, abstractBefore] = [unix.connections, abstract.connections];
      expect(await probe(executor, 'unix', path.join(ws, 'run', 'host.sock'))).toMatch(/^ERR/);
      expect(await probe(executor, 'abstract', abstractName)).toMatch(/^ERR/);
      expect(unix.connections).toBe(unixBefore);
      expect(abstract.connections).toBe(abstractBefore);
    });

    // Known gap: sockets are found by scanning when the executor starts. One created later in a
    // visible directory can be connected to: a read-only mount does not stop connect(), and this
    // kernel's Landlock (ABI < 8) cannot restrict pathname unix sockets. See README, "Security model".
    it.fails('cannot connect to a host unix socket created after the executor started', async () => {
      const late = await listen({ path: path.join(ws, 'run', 'late.sock') });
      try {
        expect(await probe(executor, 'unix', path.join(ws, 'run', 'late.sock'))).toMatch(/^ERR/);
        expect(late.connections).toBe(0);
      } finally {
        late.server.close();
      }
    });
  });

  describe('with the network on', () => {
    let executor: SandboxedExecutor;
    beforeAll(async () => {
      executor = await sandboxedExecutor(testPolicy(ws, { network: { mode: 'on' } }));
    });
    afterAll(async () => executor?.[Symbol.asyncDispose]());

    it('connects to the host loopback and reaches a DNS server, as the policy allows', async () => {
      const port = (tcp.server.address() as AddressInfo).port;
      const before = tcp.connections;
      expect(await probe(executor, 'tcp', '127.0.0.1', String(port))).toBe('CONNECTED');
      expect(tcp.connections).toBe(before + 1);
      const queries = dns.queries;
      await probe(executor, 'dns', 'example.com', String(dns.port));
      expect(dns.queries).toBeGreaterThan(queries);
    });

    it('still cannot connect to a host unix socket by path: it is masked', async () => {
      const before = unix.connections;
      expect(await probe(executor, 'unix', path.join(ws, 'run', 'host.sock'))).toMatch(/^ERR/);
      expect(unix.connections).toBe(before);
    });

    // With the network namespace shared, only skate-confine's Landlock scope keeps commands from
    // abstract sockets made outside the sandbox (the X server's, D-Bus's, ...).
    it.skipIf(noAbstractScope)('still cannot connect to a host abstract unix socket', async () => {
      const before = abstract.connections;
      expect(await probe(executor, 'abstract', abstractName)).toMatch(/^ERR/);
      expect(abstract.connections).toBe(before);
    });
  });
});
