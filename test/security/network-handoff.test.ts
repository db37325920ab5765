import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { NetworkGate } from '../../harness/network/network-gate.js';
import { kernelLauncher } from '../../harness/sandbox/kernel-launcher.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { canonicalAllowlist } from '../../shared/network-allowlist.js';
import { hostDir } from '../support/host-dir.js';
import {
  holdersOf,
  httpUpstream,
  rawUpstream,
  spliceHelpers,
  type Upstream,
} from '../support/network-upstreams.js';
import { testPolicy } from '../support/policies.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { parseShell } from '../support/sandboxed-executor.js';
import type { TempDir } from '../support/temp-dir.js';

const run = promisify(execFile);
const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;
const NODE = process.execPath;
const HANDOFF = '/run/skate-net/handoff.sock';

/** In-sandbox client: CONNECT to `target`, one request inside the tunnel, then the tunnel held for `holdMs`. */
const HOLD = `
const net = require('node:net');
const [target, holdMs] = process.argv.slice(2);
const socket = net.connect(3128, '127.0.0.1', () => socket.write('CONNECT ' + target + ' HTTP/1.1\\r\\nHost: ' + target + '\\r\\n\\r\\n'));
let stage = 0;
socket.on('data', (chunk) => {
  const line = chunk.toString().split('\\r\\n')[0];
  if (stage === 0) { console.log('PROXY', line); stage = 1; socket.write('GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'); }
  else if (stage === 1) { console.log('INSIDE', line); stage = 2; setTimeout(() => process.exit(0), Number(holdMs)); }
});
socket.on('error', (e) => console.log('ERR', e.code));
`;

/** Descriptors process `pid` holds. */
function descriptorsOf(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Inodes of the TCP connections accepted on the proxy port, in the network namespace of process `pid`. */
function acceptedOnProxyPort(pid: number): string[] {
  return readFileSync(`/proc/${pid}/net/tcp`, 'latin1')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1]?.endsWith(':0C38') && fields[3] === '01')
    .map((fields) => fields[9]!);
}

/**
 * The relay's hand-off socket (issue #21): the sandbox's forwarder passes each connection it
 * accepted on the proxy port out whole, so a tunnel's bytes cross the relay alone. Any process in
 * the sandbox can speak to that socket and send any descriptor; these cases send what a hostile
 * one would and look at the host: the relay's descriptors, its life, the files, the listeners.
 */
describe.skipIf(noSandbox)(
  'network allowlist: the relay takes only connected TCP sockets from the sandbox',
  () => {
    let root: TempDir;
    let ws: string;
    let allowed: Upstream;
    let service: Upstream;
    let unlisted: Upstream;
    let executor: ExecutorClient;
    let relay: number;
    let victim: string;

    beforeAll(async () => {
      root = await hostDir('net-handoff-');
      ws = path.join(root.path, 'ws');
      await mkdir(ws);
      await writeFile(path.join(ws, 'hold.js'), HOLD);
      victim = path.join(ws, 'victim.txt');
      await writeFile(victim, 'original\n');
      await run('cc', [
        '-O2',
        '-o',
        path.join(ws, 'handoff-sender'),
        path.resolve('test/support/native/handoff-sender.c'),
      ]);
      [allowed, service, unlisted] = await Promise.all([httpUpstream(), httpUpstream(), rawUpstream()]);
      executor = await ExecutorClient.spawn({
        policy: testPolicy(ws, {
          network: canonicalAllowlist({ allow: ['allowed.test', `localhost:${service.port}`] }),
          environment: { allow: ['PATH', 'HOME', 'LANG'], set: {} },
        }),
        launcher: kernelLauncher({
          network: {
            gate: new NetworkGate(),
            lookup: async (host) => (host === 'localhost' ? ['127.0.0.1'] : ['203.0.113.1']),
            // Every check ran on the resolved address; only then is it pointed at the stand-in.
            dial: (address, port) =>
              address === '127.0.0.1' ? { address, port } : { address: '127.0.0.1', port: allowed.port },
          },
        }),
      });
      const relays = spliceHelpers();
      expect(relays).toHaveLength(1);
      relay = relays[0]!;
    }, 60_000);

    afterAll(async () => {
      await executor?.shutdown();
      await Promise.all([allowed, service, unlisted].map((u) => u?.close()));
      await root?.[Symbol.asyncDispose]();
    }, 30_000);

    const sh = async (command: string, timeout = 20): Promise<string> =>
      parseShell(await executor.callTool('shell', { command, timeout_seconds: timeout })).output;
    const send = (args: string): Promise<string> => sh(`./handoff-sender ${HANDOFF} ${args}`, 40);
    const serves = async (): Promise<void> => {
      expect(await sh('curl -sS --max-time 5 http://allowed.test/ 2>&1')).toContain(
        'hello from allowed.test',
      );
    };
    /**
     * The relay's descriptor count once the tunnels of earlier tests have closed: the same in two reads 250 ms
     * apart (a count read while the last test's tunnel was still closing made a later comparison fail under load).
     */
    const settledDescriptors = async (): Promise<number> => {
      let last = descriptorsOf(relay);
      for (let round = 0; round < 40; round++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const now = descriptorsOf(relay);
        if (now === last) return now;
        last = now;
      }
      return last;
    };
    /** The relay is the same process, alive, and back to the descriptors it held before. */
    const relayUnharmed = async (before: number): Promise<void> => {
      expect(spliceHelpers()).toEqual([relay]);
      await expect.poll(() => descriptorsOf(relay), { timeout: 10_000 }).toBe(before);
    };

    it('passes connections out whole: a tunnel’s socket from the sandbox is held by the relay alone', async () => {
      const forwarders: number[] = [];
      for (const pid of await processDescendants(process.pid))
        if ((await commandLine(pid)).includes('--net-forward')) forwarders.push(pid);
      expect(forwarders).toHaveLength(1);
      const held = sh(`${NODE} hold.js localhost:${service.port} 2500`);
      // The connection the forwarder accepted on 127.0.0.1:3128, in the sandbox's own table.
      await expect
        .poll(() => acceptedOnProxyPort(forwarders[0]!).length, { timeout: 5_000 })
        .toBeGreaterThan(0);
      await expect
        .poll(() => acceptedOnProxyPort(forwarders[0]!).map((inode) => holdersOf(inode)), { timeout: 5_000 })
        .toEqual([[relay]]);
      const out = await held;
      expect(out).toContain('PROXY HTTP/1.1 200 Connection Established');
      expect(out).toContain('INSIDE HTTP/1.1 200 OK');
    });

    it('refuses a file, a pipe, a unix socket, a listening, an unconnected or a UDP socket, and keeps serving', async () => {
      const before = await settledDescriptors();
      const mtime = statSync(victim).mtimeMs;
      for (const kind of ['file victim.txt', 'pipe', 'unix', 'listening', 'unconnected', 'udp']) {
        expect(await send(kind), kind).toContain('SENT 1');
        await relayUnharmed(before);
      }
      // Nothing was written to the file, by the relay or by the proxy it would have gone to.
      expect(readFileSync(victim, 'utf8')).toBe('original\n');
      expect(statSync(victim).mtimeMs).toBe(mtime);
      expect(unlisted.connections).toBe(0);
      await serves();
    });

    it('closes every descriptor of a message of the wrong shape, or of several at once', async () => {
      const before = await settledDescriptors();
      // No byte, two bytes, another byte, no descriptor: each refused, and the socket's peer sees it closed.
      expect(await send('odd')).toContain('CLOSED 1/1');
      // Three in one message, and twenty (more than the relay reads: the kernel drops the rest).
      expect(await send('many 3')).toContain('CLOSED 3/3');
      expect(await send('many 20')).toContain('CLOSED 20/20');
      await relayUnharmed(before);
      await serves();
    });

    it('gives a connected socket from any process the same proxy: a loopback port off the list is refused', async () => {
      const refusedAnswer = await send(`tcp 'CONNECT localhost:${unlisted.port} HTTP/1.1\r\n\r\n'`);
      expect(refusedAnswer).toContain('ANSWER HTTP/1.1 403');
      const listed = await send(`tcp 'CONNECT localhost:${service.port} HTTP/1.1\r\n\r\n'`);
      expect(listed).toContain('ANSWER HTTP/1.1 200');
      expect(await send(`tcp 'GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n'`)).toContain(
        'ANSWER HTTP/1.1 200',
      );
      expect(unlisted.connections).toBe(0);
    });

    it('survives floods: thousands of refused descriptors, and more sockets than the proxy holds', async () => {
      const before = await settledDescriptors();
      const harness = descriptorsOf(process.pid);
      expect(await send('flood 5000')).toContain('SENT 5000');
      await relayUnharmed(before);
      // Past the proxy's 256 connections the rest are closed; every one goes when its peer does.
      expect(await send('tcpflood 300')).toContain('SENT 300');
      await relayUnharmed(before);
      await expect.poll(() => descriptorsOf(process.pid), { timeout: 10_000 }).toBeLessThanOrEqual(harness);
      await serves();
      expect(unlisted.connections).toBe(0);
    }, 60_000);
  },
);
