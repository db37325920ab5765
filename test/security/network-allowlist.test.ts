import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommandInbox } from '../../harness/engine/command-inbox.js';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { type AllowlistProxy, startAllowlistProxy } from '../../harness/network/allowlist-proxy.js';
import { createNetworkAsker, NETWORK_ANSWERS } from '../../harness/network/network-asker.js';
import { type NetworkAnswer, type NetworkDenial, NetworkGate } from '../../harness/network/network-gate.js';
import { kernelLauncher } from '../../harness/sandbox/kernel-launcher.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import type { EngineEvent } from '../../shared/engine-events.js';
import { canonicalAllowlist } from '../../shared/network-allowlist.js';
import type { NetworkPolicy } from '../../shared/policy.js';
import { hostDir } from '../support/host-dir.js';
import {
  holdersOf,
  httpUpstream,
  parentOf,
  rawUpstream,
  socketsOf,
  spliceHelpers,
  tcpInodesTo,
  type Upstream,
} from '../support/network-upstreams.js';
import { testPolicy } from '../support/policies.js';
import { eventually } from '../support/processes.js';
import { parseShell } from '../support/sandboxed-executor.js';
import { type TempDir, tempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;
const NODE = process.execPath;

/** Public-looking addresses the fake resolver hands out, one per host (RFC 5737 documentation range). */
const ADDRESSES: Record<string, string> = {
  'allowed.test': '203.0.113.1',
  'api.github.test': '203.0.113.3',
  'gist.github.test': '203.0.113.4',
  'ws.test': '203.0.113.5',
  'refused.test': '203.0.113.2',
  'evil-github.test': '203.0.113.2',
  'github.test.evil.test': '203.0.113.2',
  'rebind.test': '127.0.0.1',
  'ask-once.test': '203.0.113.2',
  'ask-session.test': '203.0.113.2',
  'ask-never.test': '203.0.113.2',
};

/** In-sandbox client: CONNECT through the proxy to `target`, then a TLS ClientHello naming `sni`. */
const SNI_CLIENT = `
const net = require('node:net'), tls = require('node:tls');
const [target, sni] = process.argv.slice(2);
const socket = net.connect(3128, '127.0.0.1', () => socket.write('CONNECT ' + target + ' HTTP/1.1\\r\\nHost: ' + target + '\\r\\n\\r\\n'));
socket.once('data', (chunk) => {
  console.log('PROXY', chunk.toString().split('\\r\\n')[0]);
  const secure = tls.connect({ socket, servername: sni || undefined, rejectUnauthorized: false });
  secure.on('error', (e) => { console.log('TLS', e.code || e.message); process.exit(0); });
  secure.on('close', () => { console.log('CLOSED'); process.exit(0); });
});
socket.on('error', (e) => console.log('ERR', e.code));
setTimeout(() => { console.log('TIMEOUT'); process.exit(0); }, 3000);
`;

/** In-sandbox client: a WebSocket-style upgrade through the proxy, then one echoed message. */
const UPGRADE_CLIENT = `
const net = require('node:net');
const [host] = process.argv.slice(2);
const socket = net.connect(3128, '127.0.0.1', () => socket.write('GET http://' + host + '/chat HTTP/1.1\\r\\nHost: ' + host + '\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n'));
let seen = '';
socket.on('data', (chunk) => {
  seen += chunk;
  if (seen.includes('\\r\\n\\r\\n') && !seen.includes('ping')) {
    console.log('STATUS', seen.split('\\r\\n')[0]);
    if (seen.startsWith('HTTP/1.1 101')) socket.write('ping'); else process.exit(0);
  } else if (seen.includes('ping')) { console.log('ECHO ping'); process.exit(0); }
});
socket.on('error', (e) => console.log('ERR', e.code));
socket.on('close', () => process.exit(0));
setTimeout(() => { console.log('TIMEOUT'); process.exit(0); }, 3000);
`;

/** In-sandbox client: raw bytes from stdin to the proxy's socket, the answer's first line out. */
const RAW_SOCKET = `
const s = require('node:net').connect('/run/skate-net/proxy.sock');
process.stdin.pipe(s);
s.on('data', (d) => { console.log(String(d).split('\\r\\n')[0]); process.exit(0); });
s.on('error', (e) => console.log('ERR', e.code));
setTimeout(() => { console.log('TIMEOUT'); process.exit(0); }, 3000);
`;

/** In-sandbox relay: a local process listening on 9999 that forwards to `address:port`. */
const RELAY = `
const net = require('node:net');
const [address, port] = process.argv.slice(2);
const server = net.createServer((c) => { const u = net.connect(Number(port), address); c.pipe(u).pipe(c); u.on('error', (e) => { console.log('RELAY', e.code); c.destroy(); }); c.on('error', () => {}); });
server.listen(9999, '127.0.0.1', () => {
  const client = net.connect(9999, '127.0.0.1', () => client.write('GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'));
  client.on('data', (d) => console.log('GOT', String(d).split('\\r\\n')[0]));
  client.on('close', () => { server.close(); setTimeout(() => process.exit(0), 50); });
  client.on('error', () => {});
});
setTimeout(() => process.exit(0), 3000);
`;

/**
 * In-sandbox client: CONNECT to `target`, then two TLS ClientHellos in one write, naming `first`
 * and then `second`: what an admitted tunnel carries after the check.
 */
const TWO_HELLOS = `
const net = require('node:net'), tls = require('node:tls'), { Duplex } = require('node:stream');
const [target, first, second] = process.argv.slice(2);
const hello = (name) => new Promise((resolve) => {
  const wire = new Duplex({ read() {}, write(chunk, _e, done) { resolve(chunk); done(); } });
  tls.connect({ socket: wire, servername: name, rejectUnauthorized: false }).on('error', () => {});
});
Promise.all([hello(first), hello(second)]).then(([a, b]) => {
  const socket = net.connect(3128, '127.0.0.1', () => socket.write('CONNECT ' + target + ' HTTP/1.1\\r\\nHost: ' + target + '\\r\\n\\r\\n'));
  socket.once('data', (chunk) => { console.log('PROXY', chunk.toString().split('\\r\\n')[0]); socket.write(Buffer.concat([a, b])); });
  socket.on('error', (e) => console.log('ERR', e.code));
  socket.on('close', () => { console.log('CLOSED'); process.exit(0); });
  setTimeout(() => { console.log('TIMEOUT'); process.exit(0); }, 3000);
});
`;

/** In-sandbox client: two plain requests pipelined on one connection to the proxy, every answer's status line out. */
const PIPELINED = `
const net = require('node:net');
const [first, second] = process.argv.slice(2);
const request = (host) => 'GET http://' + host + '/ HTTP/1.1\\r\\nHost: ' + host + '\\r\\n\\r\\n';
const socket = net.connect(3128, '127.0.0.1', () => socket.write(request(first) + request(second)));
let seen = '';
socket.on('data', (chunk) => (seen += chunk));
socket.on('error', (e) => console.log('ERR', e.code));
const done = () => { for (const line of seen.split('\\r\\n')) if (line.startsWith('HTTP/')) console.log(line); process.exit(0); };
socket.on('close', done);
setTimeout(done, 3000);
`;

/**
 * In-sandbox client: CONNECT to `target`, one keep-alive request inside the tunnel, the tunnel
 * held open for `holdMs`, then a CONNECT to `other` sent inside it too.
 */
const HOLD = `
const net = require('node:net');
const [target, other, holdMs] = process.argv.slice(2);
const socket = net.connect(3128, '127.0.0.1', () => socket.write('CONNECT ' + target + ' HTTP/1.1\\r\\nHost: ' + target + '\\r\\n\\r\\n'));
let stage = 0;
socket.on('data', (chunk) => {
  const line = chunk.toString().split('\\r\\n')[0];
  if (stage === 0) { console.log('PROXY', line); stage = 1; socket.write('GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'); }
  else if (stage === 1) {
    console.log('INSIDE', line);
    stage = 2;
    setTimeout(() => {
      socket.write('CONNECT ' + other + ' HTTP/1.1\\r\\nHost: ' + other + '\\r\\n\\r\\n');
      setTimeout(() => { console.log('HELD'); process.exit(0); }, 300);
    }, Number(holdMs));
  }
});
socket.on('error', (e) => console.log('ERR', e.code));
`;

const SCRIPTS: Record<string, string> = {
  'hold.js': HOLD,
  'sni.js': SNI_CLIENT,
  'two-hellos.js': TWO_HELLOS,
  'pipelined.js': PIPELINED,
  'upgrade.js': UPGRADE_CLIENT,
  'relay.js': RELAY,
  'raw-socket.js': RAW_SOCKET,
};

describe.skipIf(noSandbox)('network allowlist: the proxy is the one way out', () => {
  let root: TempDir;
  let ws: string;
  let allowedHttp: Upstream;
  let allowedTls: Upstream;
  let refused: Upstream;
  let localService: Upstream;
  let unlistedLocal: Upstream;
  let executor: ExecutorClient;
  const gate = new NetworkGate();
  const denials: NetworkDenial[] = [];
  const lookups: string[] = [];

  beforeAll(async () => {
    root = await hostDir('net-allowlist-');
    ws = path.join(root.path, 'ws');
    await mkdir(ws);
    for (const [name, script] of Object.entries(SCRIPTS)) await writeFile(path.join(ws, name), script);
    [allowedHttp, allowedTls, refused, localService, unlistedLocal] = await Promise.all([
      httpUpstream(),
      rawUpstream(),
      rawUpstream(),
      httpUpstream(),
      rawUpstream(),
    ]);
    gate.onDenied((denial) => denials.push(denial));
    const network = canonicalAllowlist({
      allow: ['allowed.test', '*.github.test', 'ws.test', 'rebind.test', `localhost:${localService.port}`],
      deny: ['gist.github.test'],
    });
    executor = await ExecutorClient.spawn({
      policy: testPolicy(ws, {
        network,
        environment: { allow: ['PATH', 'HOME', 'LANG'], set: {} },
      }),
      launcher: kernelLauncher({
        network: {
          gate,
          lookup: async (host) => {
            lookups.push(host);
            if (host === 'localhost') return ['127.0.0.1'];
            const address = ADDRESSES[host];
            if (!address) throw new Error('ENOTFOUND');
            return [address];
          },
          // Every check has run on the resolved address; only then does the socket go to a loopback stand-in.
          dial: (address, port) => {
            if (address === '127.0.0.1') return { address, port };
            if (address === '203.0.113.2') return { address: '127.0.0.1', port: refused.port };
            if (port === 443) return { address: '127.0.0.1', port: allowedTls.port };
            return { address: '127.0.0.1', port: allowedHttp.port };
          },
        },
      }),
    });
  }, 60_000);

  afterAll(async () => {
    await executor?.shutdown();
    await Promise.all([allowedHttp, allowedTls, refused, localService, unlistedLocal].map((u) => u?.close()));
    await root?.[Symbol.asyncDispose]();
  }, 30_000);

  const sh = async (command: string): Promise<string> =>
    parseShell(await executor.callTool('shell', { command, timeout_seconds: 20 })).output;
  const curl = (args: string): Promise<string> =>
    sh(`curl -sS --max-time 5 -w '\\nHTTP %{http_code}\\n' ${args} 2>&1`);
  const deniedFor = (host: string) => denials.filter((d) => d.host === host);

  it('gives commands the proxy and the CA bundle, and no resolver', async () => {
    const env = await sh('env | sort');
    for (const line of [
      'HTTP_PROXY=http://127.0.0.1:3128',
      'https_proxy=http://127.0.0.1:3128',
      'ALL_PROXY=http://127.0.0.1:3128',
      'NO_PROXY=localhost,127.0.0.1,::1',
      'npm_config_https_proxy=http://127.0.0.1:3128',
      'PIP_PROXY=http://127.0.0.1:3128',
      'GIT_CONFIG_KEY_0=http.proxy',
      'NODE_EXTRA_CA_CERTS=/run/skate-net/ca-certificates.crt',
      'SSL_CERT_FILE=/run/skate-net/ca-certificates.crt',
      'REQUESTS_CA_BUNDLE=/run/skate-net/ca-certificates.crt',
    ]) {
      expect(env).toContain(line);
    }
    // The bundle is there, read-only, beside the proxy's sockets and the owner record (the harness's pid and start).
    expect(await sh('ls /run/skate-net; touch /run/skate-net/x 2>/dev/null || echo READ-ONLY')).toBe(
      'ca-certificates.crt\nhandoff.sock\nowner\nproxy.sock\nREAD-ONLY\n',
    );
    expect(await sh('git config --get http.proxy')).toContain('http://127.0.0.1:3128');
    // No DNS from inside: the names do not resolve, and no UDP leaves the namespace.
    expect(await sh('getent hosts allowed.test || echo NO-DNS')).toContain('NO-DNS');
    expect(
      await sh(
        `${NODE} -e "require('node:dgram').createSocket('udp4').send('x', 53, '10.255.255.53', (e) => { console.log(e ? e.code : 'SENT'); process.exit(0); })"`,
      ),
    ).toContain('ENETUNREACH');
    expect(lookups).not.toContain('allowed.test');
  });

  it('forwards plain http:// to an allowed host and filters each request', async () => {
    const out = await curl('http://allowed.test/');
    expect(out).toContain('hello from allowed.test');
    expect(allowedHttp.received.at(-1)).toBe('GET / host=allowed.test');
  });

  it('refuses plain http:// to a host not on the list, before any lookup or connection', async () => {
    const before = refused.connections;
    const out = await curl('http://refused.test/');
    expect(out).toContain('HTTP 403');
    expect(out).toContain('Skate refused refused.test:80 (not_allowed)');
    expect(refused.connections).toBe(before);
    expect(lookups).not.toContain('refused.test');
    expect(deniedFor('refused.test').at(-1)).toMatchObject({ port: 80, reason: 'not_allowed' });
  });

  it('matches *.github.test on whole labels: evil-github.test and github.test.evil.test are refused', async () => {
    for (const host of ['evil-github.test', 'github.test.evil.test']) {
      expect(await curl(`http://${host}/`)).toContain('HTTP 403');
      expect(await curl(`https://${host}/`)).toContain('403');
      expect(deniedFor(host).length).toBe(2);
    }
    expect(await curl('http://api.github.test/')).toContain('hello');
    expect(await curl('http://gist.github.test/')).toContain('HTTP 403');
    expect(deniedFor('gist.github.test').at(-1)?.reason).toBe('denied');
    expect(refused.connections).toBe(0);
  });

  it('refuses IP literals of an allowed host, v4 and v6, and what getaddrinfo would read as one', async () => {
    const before = allowedHttp.connections;
    expect(await curl('http://203.0.113.1/')).toContain('HTTP 403');
    expect(await curl('https://203.0.113.1/')).toContain('403');
    expect(await curl('http://[::ffff:203.0.113.1]/')).toContain('HTTP 403');
    expect(await curl('http://[2001:db8::1]/')).toContain('HTTP 403');
    expect(await curl('--proxy http://127.0.0.1:3128 --noproxy "" http://127.1/')).toContain('HTTP 403');
    expect(allowedHttp.connections).toBe(before);
  });

  it('refuses a CONNECT to an allowed host whose TLS ClientHello names another host', async () => {
    const before = allowedTls.connections;
    const mismatch = await sh(`${NODE} sni.js allowed.test:443 refused.test`);
    expect(mismatch).toContain('PROXY HTTP/1.1 200');
    expect(mismatch).not.toContain('TIMEOUT');
    const none = await sh(`${NODE} sni.js allowed.test:443 ''`);
    expect(none).toContain('PROXY HTTP/1.1 200');
    // The upstream never saw a packet of either.
    expect(allowedTls.connections).toBe(before);
    expect(denials.filter((d) => d.reason === 'sni_mismatch').map((d) => d.host)).toEqual(
      expect.arrayContaining(['refused.test', 'allowed.test']),
    );
    // The same CONNECT with the right name reaches it, ClientHello first.
    await sh(`${NODE} sni.js allowed.test:443 allowed.test`);
    expect(allowedTls.connections).toBe(before + 1);
    expect(allowedTls.received.at(-1)?.charCodeAt(0)).toBe(0x16);
    expect(allowedTls.received.at(-1)).toContain('allowed.test');
  });

  it('carries a second ClientHello in an admitted tunnel to that host only, and refuses a tunnel whose first names another', async () => {
    const before = { allowed: allowedTls.connections, refused: refused.connections };
    // Admitted on the first hello's name: the second (another host's) goes down the same tunnel,
    // to the address the CONNECT host resolved to, and nowhere else.
    expect(await sh(`${NODE} two-hellos.js allowed.test:443 allowed.test refused.test`)).toContain(
      'PROXY HTTP/1.1 200',
    );
    expect(allowedTls.connections).toBe(before.allowed + 1);
    expect(refused.connections).toBe(before.refused);
    // The other name only checked the first: the order cannot be turned round.
    await sh(`${NODE} two-hellos.js allowed.test:443 refused.test allowed.test`);
    expect(allowedTls.connections).toBe(before.allowed + 1);
    expect(refused.connections).toBe(before.refused);
    expect(denials.at(-1)).toMatchObject({ host: 'refused.test', reason: 'sni_mismatch' });
  });

  it('judges each pipelined plain request on its own: an allowed one cannot carry a refused one', async () => {
    const before = { allowed: allowedHttp.received.length, refused: refused.connections };
    const statuses = (await sh(`${NODE} pipelined.js allowed.test refused.test`))
      .split('\n')
      .filter((line) => line.startsWith('HTTP/'));
    expect(statuses[0]).toBe('HTTP/1.1 200 OK');
    // The second is answered 403 (or its connection closed first): never passed on.
    expect(statuses.slice(1).every((line) => line.startsWith('HTTP/1.1 403'))).toBe(true);
    expect(allowedHttp.received.slice(before.allowed)).toEqual(['GET / host=allowed.test']);
    expect(refused.connections).toBe(before.refused);
  });

  it("joins admitted tunnels outside the sandbox and lets each go when it ends (the relay's sockets on the host)", async () => {
    const relays = spliceHelpers();
    expect(relays).toHaveLength(1);
    const sockets = (): number => socketsOf(relays[0]!);
    const idle = sockets();
    await sh(`${NODE} sni.js allowed.test:443 allowed.test`);
    // The stand-in closes each connection after 300 ms; the helper lets both sockets go then.
    await expect.poll(sockets, { timeout: 5_000 }).toBe(idle);
    // The relay runs beside the harness, not in the sandbox: its parent is this process.
    expect(parentOf(relays[0]!)).toBe(process.pid);
  });

  it('has the relay connect upstream itself, only where the proxy checked, and keep that socket out of the sandbox', async () => {
    const [relay] = spliceHelpers();
    const target = `localhost:${localService.port}`;
    const before = localService.connections;
    const held = sh(`${NODE} hold.js ${target} refused.test:443 2500`);
    // On the host: the tunnel's TCP connection to the service, found by its port in the host's table.
    const upstreamInodes = (): string[] => tcpInodesTo(localService.port);
    await expect.poll(() => upstreamInodes().length, { timeout: 5_000 }).toBeGreaterThan(0);
    for (const inode of upstreamInodes()) {
      // Held by the relay beside the harness, and by no other process: not the harness, not the sandbox.
      expect(holdersOf(inode)).toEqual([relay]);
    }
    const out = await held;
    expect(out).toContain('PROXY HTTP/1.1 200 Connection Established');
    expect(out).toContain('INSIDE HTTP/1.1 200 OK');
    expect(localService.connections).toBe(before + 1);
    // A CONNECT sent inside the tunnel is bytes for the checked service, never a second upstream.
    expect(refused.connections).toBe(0);
    // A CONNECT host written in the relay's own message syntax never reaches it: refused (403),
    // or dropped by the HTTP parser; the target it names records nothing.
    const forged = `'a","address":"127.0.0.1","port":${refused.port},"x":"b:443'`;
    const answer = await sh(`printf 'CONNECT %s HTTP/1.1\\r\\n\\r\\n' ${forged} | ${NODE} raw-socket.js`);
    expect(answer).not.toContain('200');
    expect(refused.connections).toBe(0);
  });

  it('answers 502 for an allowed service the relay cannot connect to, and reaches nothing else', async () => {
    const dead = net.createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const deadPort = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const list = gate.allowlist;
    gate.set(canonicalAllowlist({ allow: [...list.allow, `localhost:${deadPort}`], deny: list.deny }));
    try {
      const out = await sh(
        `printf 'CONNECT localhost:${deadPort} HTTP/1.1\\r\\n\\r\\n' | ${NODE} raw-socket.js`,
      );
      expect(out).toContain('HTTP/1.1 502');
    } finally {
      gate.set(list);
    }
    expect(refused.connections).toBe(0);
  });

  it('lets a redirect from an allowed host to a refused one go no further than the proxy', async () => {
    const out = await curl('-L http://allowed.test/redirect');
    expect(out).toContain('HTTP 403');
    expect(allowedHttp.received).toContain('GET /redirect host=allowed.test');
    expect(refused.connections).toBe(0);
  });

  it('refuses a name on the list that resolves to a loopback address unless its pattern names the port', async () => {
    expect(await curl('http://rebind.test/')).toContain('HTTP 403');
    expect(deniedFor('rebind.test').at(-1)?.reason).toBe('local_address');
  });

  it('has no way around the proxy: a relay through a local process or a host socket reaches nothing', async () => {
    // A process inside relaying to the refused host's address, and straight to its loopback port.
    expect(await sh(`${NODE} relay.js 203.0.113.2 80`)).toContain('RELAY ENETUNREACH');
    expect(await sh(`${NODE} relay.js 127.0.0.1 ${refused.port}`)).toContain('RELAY ECONNREFUSED');
    // Tools told to skip the proxy get no route, and no name.
    expect(await curl('--noproxy "*" http://203.0.113.2/')).toMatch(
      /Failed to connect|Network is unreachable|Couldn't connect/,
    );
    // The proxy's own socket, spoken to directly, is the same proxy.
    expect(
      await sh(`printf 'CONNECT refused.test:443 HTTP/1.1\\r\\n\\r\\n' | ${NODE} raw-socket.js`),
    ).toContain('HTTP/1.1 403');
    expect(refused.connections).toBe(0);
  });

  it('judges a WebSocket upgrade like a request: refused host refused, allowed host tunnelled', async () => {
    const denied = await sh(`${NODE} upgrade.js refused.test`);
    expect(denied).toContain('STATUS HTTP/1.1 403');
    expect(refused.connections).toBe(0);
    const allowed = await sh(`${NODE} upgrade.js ws.test`);
    expect(allowed).toContain('STATUS HTTP/1.1 101');
    expect(allowed).toContain('ECHO ping');
    expect(allowedHttp.received).toContain('UPGRADE /chat');
  });

  it('reaches a host loopback service only on the port the list names', async () => {
    // localhost:PORT is listed: a client that knows nothing of proxies reaches the host's service.
    expect(await curl(`http://localhost:${localService.port}/`)).toContain('hello from allowed.test');
    expect(localService.connections).toBeGreaterThan(0);
    // Another port of the host's loopback, through the proxy or not, is refused.
    expect(
      await curl(`-x http://127.0.0.1:3128 --noproxy "" http://localhost:${unlistedLocal.port}/`),
    ).toContain('HTTP 403');
    expect(await curl(`http://localhost:${unlistedLocal.port}/`)).not.toContain('HTTP 200');
    expect(unlistedLocal.connections).toBe(0);
  });

  it('changes the list at once, without a new executor, and tells every refusal with its host and port', async () => {
    const pid = (await executor.health()).pid;
    expect(await curl('http://refused.test/')).toContain('HTTP 403');
    gate.set(
      canonicalAllowlist({ allow: [...gate.allowlist.allow, 'refused.test'], deny: gate.allowlist.deny }),
    );
    await curl('http://refused.test/');
    expect(refused.connections).toBe(1);
    expect((await executor.health()).pid).toBe(pid);
    for (const denial of denials) {
      expect(denial).toMatchObject({
        host: expect.any(String),
        port: expect.any(Number),
        at: expect.any(String),
      });
    }
  });

  it('asks about a host off the list when someone can answer: once, for the session, never; nobody asked otherwise', async () => {
    const inbox = createCommandInbox();
    const questions: Extract<EngineEvent, { type: 'ask_user_request' }>[] = [];
    const recorded: { host: string; port: number; decision: NetworkAnswer }[] = [];
    let reply: string = NETWORK_ANSWERS.once;
    const asker = (ceiling?: NetworkPolicy) =>
      createNetworkAsker({
        inbox: inbox.inbox,
        emit: (event) => {
          if (event.type !== 'ask_user_request') return;
          questions.push(event);
          // The user answers a moment later; the connection waits for it.
          setTimeout(
            () => inbox.send({ type: 'ask_user_response', requestId: event.requestId, answers: [reply] }),
            50,
          );
        },
        agent: [],
        command: () => undefined,
        runSignal: () => undefined,
        current: () => ({ mode: 'allowlist', ...gate.allowlist }),
        setList: async (list) => gate.set(canonicalAllowlist(list)),
        record: (decision) => recorded.push(decision),
        ceiling,
      });
    gate.setAsker(asker());
    try {
      const start = refused.connections;
      // Once: this connection reaches the host, the list stays as it was, the next one is asked again.
      await curl('http://ask-once.test/');
      expect(refused.connections).toBe(start + 1);
      expect(questions.at(-1)?.network).toEqual({ host: 'ask-once.test', port: 80 });
      expect(questions.at(-1)?.questions[0]?.options).toEqual(Object.values(NETWORK_ANSWERS));
      expect(gate.allowlist.allow).not.toContain('ask-once.test');
      await curl('http://ask-once.test/');
      expect(refused.connections).toBe(start + 2);
      expect(questions).toHaveLength(2);
      // For the session: on the list at once (no executor restart), never asked again.
      reply = NETWORK_ANSWERS.session;
      await curl('http://ask-session.test/');
      expect(gate.allowlist.allow).toContain('ask-session.test');
      await curl('http://ask-session.test/');
      expect(refused.connections).toBe(start + 4);
      expect(questions).toHaveLength(3);
      // Never: refused, on the deny list, not asked again.
      reply = NETWORK_ANSWERS.never;
      expect(await curl('http://ask-never.test/')).toContain('HTTP 403');
      expect(await curl('http://ask-never.test/')).toContain('HTTP 403');
      expect(refused.connections).toBe(start + 4);
      expect(questions).toHaveLength(4);
      expect(gate.allowlist.deny).toContain('ask-never.test');
      // A question nobody answers (Esc, an empty form) refuses.
      reply = '';
      expect(await curl('http://ask-once.test/')).toContain('HTTP 403');
      expect(refused.connections).toBe(start + 4);
      expect(recorded.map((each) => each.decision)).toEqual(['once', 'once', 'session', 'never', 'refused']);
      // Under a ceiling the answer could not widen past (serve's policy), nobody is asked.
      gate.setAsker(asker({ mode: 'allowlist', allow: ['allowed.test'], deny: [] }));
      expect(await curl('http://ask-once.test/')).toContain('HTTP 403');
      // With nobody to ask (headless, a sub-agent), a refusal is only a refusal.
      gate.setAsker(undefined);
      expect(await curl('http://ask-once.test/')).toContain('HTTP 403');
      expect(questions).toHaveLength(5);
      expect(refused.connections).toBe(start + 4);
    } finally {
      gate.setAsker(undefined);
    }
  });
});

/** The npm registry this machine reaches (`npm config get registry`), fetched through the proxy for real. */
const registry = await promisify(execFile)('npm', ['config', 'get', 'registry'])
  .then(({ stdout }) => new URL(stdout.trim()))
  .catch(() => undefined);
const registryReachable =
  registry &&
  (await fetch(new URL('/is-number', registry), { signal: AbortSignal.timeout(8000) })
    .then((response) => response.ok)
    .catch(() => false));

describe.skipIf(noSandbox || !registryReachable)('network allowlist: the real npm registry', () => {
  it('fetches a package document when the registry is listed, and is refused when not', async () => {
    await using root = await hostDir('net-registry-');
    const host = registry!.hostname;
    const run = async (allow: string[]): Promise<string> => {
      const client = await ExecutorClient.spawn({
        policy: testPolicy(root.path, { network: canonicalAllowlist({ allow }) }),
        launcher: kernelLauncher(),
      });
      try {
        return parseShell(
          await client.callTool('shell', {
            command: `curl -sS --max-time 15 -o /tmp/doc -w 'HTTP %{http_code}\\n' ${registry!.origin}/is-number 2>&1; grep -c -o 'is-number' /tmp/doc && echo DOC-OK`,
            timeout_seconds: 30,
          }),
        ).output;
      } finally {
        await client.shutdown();
      }
    };
    const allowed = await run([host]);
    expect(allowed).toContain('HTTP 200');
    expect(allowed).toContain('DOC-OK');
    const refusedOut = await run(['example.com']);
    expect(refusedOut).not.toContain('HTTP 200');
    expect(refusedOut).toContain('403');
  }, 60_000);
});

describe('network allowlist: the proxy under garbage and floods', () => {
  let dir: TempDir;
  let proxy: AllowlistProxy;
  let socketPath: string;
  let upstream: Upstream;

  beforeAll(async () => {
    dir = await tempDir('net-proxy-');
    socketPath = path.join(dir.path, 'proxy.sock');
    upstream = await httpUpstream();
    proxy = await startAllowlistProxy(socketPath, {
      gate: new NetworkGate({ allow: ['allowed.test'], deny: [] }),
      lookup: async () => ['203.0.113.1'],
      dial: () => ({ address: '127.0.0.1', port: upstream.port }),
      limits: { maxConnections: 16, headerTimeoutMs: 300, maxHeaderBytes: 4096 },
    });
  });

  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    await dir?.[Symbol.asyncDispose]();
  });

  const exchange = (bytes: string | Buffer, waitMs = 400): Promise<string> =>
    new Promise((resolve) => {
      const socket = net.connect(socketPath, () => socket.write(bytes));
      let got = '';
      socket.on('data', (chunk) => (got += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(got));
      setTimeout(() => {
        socket.destroy();
        resolve(got);
      }, waitMs);
    });
  const works = async (): Promise<void> => {
    const answer = await exchange('GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n');
    expect(answer).toContain('hello from allowed.test');
  };

  it('survives malformed requests, oversized heads, bad CONNECTs and ClientHellos, and still answers', async () => {
    const hostile: (string | Buffer)[] = [
      Buffer.from([0, 1, 2, 255, 254, 13, 10, 13, 10]),
      'GET / HTTP/1.1\r\n\r\n',
      'GET https://allowed.test/ HTTP/1.1\r\n\r\n',
      `GET http://allowed.test/ HTTP/1.1\r\nX: ${'a'.repeat(10_000)}\r\n\r\n`,
      'CONNECT allowed.test HTTP/1.1\r\n\r\n',
      'CONNECT [zz]:443 HTTP/1.1\r\n\r\n',
      'CONNECT allowed.test:99999 HTTP/1.1\r\n\r\n',
      `CONNECT ${'a.'.repeat(200)}test:443 HTTP/1.1\r\n\r\n`,
      Buffer.concat([
        Buffer.from('CONNECT allowed.test:443 HTTP/1.1\r\n\r\n'),
        Buffer.from([0x16, 3, 1, 0xff, 0xff, 1, 0xff, 0xff, 0xff]),
      ]),
      Buffer.concat([
        Buffer.from('CONNECT allowed.test:443 HTTP/1.1\r\n\r\n'),
        Buffer.from([0x16, 3, 1, 0, 4, 1, 0, 0, 200]),
      ]),
      'GET http://user:pw@allowed.test/ HTTP/1.1\r\n\r\n',
    ];
    for (const bytes of hostile) {
      const answer = await exchange(bytes);
      expect(answer).not.toContain('hello from allowed.test');
    }
    expect(upstream.received.filter((line) => line.startsWith('GET'))).toEqual([]);
    await works();
  });

  it('closes connections that say nothing, caps how many are open, and serves again after', async () => {
    const idle = await Promise.all(
      Array.from(
        { length: 40 },
        () =>
          new Promise<net.Socket>((resolve) => {
            const socket = net.connect(socketPath, () => resolve(socket));
            socket.on('error', () => undefined);
          }),
      ),
    );
    expect(proxy.connections()).toBeLessThanOrEqual(16);
    // Closed once their header timeout (300 ms) passes: polled, not one read after a fixed wait.
    expect(await eventually(() => proxy.connections() === 0, 3_000)).toBe(true);
    for (const socket of idle) socket.destroy();
    await works();
  });
});
