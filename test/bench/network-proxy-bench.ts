import { execFile, spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { kernelLauncher } from '../../harness/sandbox/kernel-launcher.js';
import { canonicalAllowlist } from '../../shared/network-allowlist.js';
import type { NetworkPolicy } from '../../shared/policy.js';
import { testPolicy } from '../support/policies.js';
import { parseShell } from '../support/sandboxed-executor.js';
import { quantile, round } from './stats.js';

const run = promisify(execFile);
const CONNECTIONS = 200;
/** Direct and proxied runs, alternating. */
const ROUNDS = 5;
const BULK_BYTES = 256 * 1024 * 1024;

/**
 * One client for every side: `direct` connects to the server's port, `proxy` goes through the
 * sandbox's forwarder and the harness's proxy (`CONNECT host:port`). Prints the median time from
 * connect to the first byte of an HTTPS answer on a new connection, and the rate of one bulk
 * download.
 */
const CLIENT = `
const net = require('node:net'), tls = require('node:tls');
const [mode, host, port, count] = process.argv.slice(2);
const now = () => Number(process.hrtime.bigint()) / 1e6;
function open(marks) {
  return new Promise((resolve, reject) => {
    const raw = mode === 'direct'
      ? net.connect(Number(port), '127.0.0.1')
      : net.connect(3128, '127.0.0.1', () => raw.write('CONNECT ' + host + ':' + port + ' HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'));
    raw.on('error', reject);
    raw.once('connect', () => (marks.tcp = now()));
    const secure = () => {
      marks.answered = now();
      const s = tls.connect({ socket: raw, servername: host, rejectUnauthorized: false }, () => { marks.tls = now(); resolve(s); });
      s.on('error', reject);
    };
    if (mode === 'direct') raw.once('connect', secure);
    else raw.once('data', (d) => (String(d).startsWith('HTTP/1.1 200') ? secure() : reject(new Error(String(d)))));
  });
}
function get(path, marks) {
  return open(marks).then((s) => new Promise((resolve) => {
    s.write('GET ' + path + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\nConnection: close\\r\\n\\r\\n');
    let bytes = 0;
    s.on('data', (d) => { if (marks.first === undefined) marks.first = now(); bytes += d.length; });
    s.on('end', () => resolve(bytes));
  }));
}
const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
(async () => {
  const phases = { tcp: [], proxyAnswer: [], handshake: [], firstByte: [], total: [] };
  for (let i = 0; i < Number(count); i++) {
    const marks = { start: now() };
    await get('/small', marks);
    phases.tcp.push(marks.tcp - marks.start);
    phases.proxyAnswer.push(marks.answered - marks.tcp);
    phases.handshake.push(marks.tls - marks.answered);
    phases.firstByte.push(marks.first - marks.tls);
    phases.total.push(marks.first - marks.start);
  }
  const marks = { start: now() };
  const bytes = await get('/bulk', marks);
  const seconds = (now() - marks.start) / 1e3;
  const phasesMs = Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, median(v)]));
  console.log(JSON.stringify({ connectMs: phasesMs.total, phasesMs, bulkMiBps: bytes / 1048576 / seconds, bytes }));
})().catch((e) => { console.log(JSON.stringify({ error: String(e) })); });
`;

/**
 * The loopback TLS server, in a process of its own: an upstream on the internet never shares the
 * harness's thread, and in this process it would (the proxy runs here), so every byte relayed
 * would wait for the same thread to encrypt the next one. Prints its port.
 */
const SERVER = `
const https = require('node:https'), fs = require('node:fs'), path = require('node:path');
const [dir, total] = process.argv.slice(2);
const bulk = Buffer.alloc(1024 * 1024, 7);
const server = https.createServer(
  { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) },
  (request, response) => {
    if (request.url !== '/bulk') return void response.end('ok\\n');
    response.writeHead(200, { 'Content-Length': Number(total) });
    let sent = 0;
    const pump = () => {
      while (sent < Number(total)) {
        sent += bulk.length;
        if (!response.write(bulk)) return void response.once('drain', pump);
      }
      response.end();
    };
    pump();
  },
);
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** Where a new connection's milliseconds go (medians): TCP connect, the proxy's `200` (0 direct), TLS handshake, first byte. */
interface Phases {
  tcp: number;
  proxyAnswer: number;
  handshake: number;
  firstByte: number;
}

interface Figures {
  connectMs: number;
  phasesMs: Phases;
  bulkMiBps: number;
}

/** A documentation address (RFC 5737) the bench's resolver gives `web.bench.test`; dialled to the server. */
const WEB_ADDRESS = '192.0.2.80';

/**
 * The allowlist proxy's cost (issue #21), like with like: the same client, in the same kind of
 * sandbox (bubblewrap, skate-confine, the same policy), connecting straight to a loopback TLS
 * server under network `on`, and through the sandbox's forwarder and the harness's proxy under an
 * allowlist, both ways a CONNECT is admitted: a web host (`web.bench.test`, port-less pattern: the
 * proxy reads the TLS ClientHello and checks its server name before connecting) and a service
 * named by its port (`bench.test:PORT`, connected at once). The same client on the host is
 * printed too. A bulk download through the tunnel against the same download direct; `npm
 * install` of a small package inside the sandbox (through the proxy) against the host, each with
 * an empty cache.
 */
export async function benchNetworkProxy(): Promise<object> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-bench-net-')));
  try {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=bench.test',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
      '-days',
      '1',
    ]);
    await writeFile(path.join(dir, 'server.js'), SERVER);
    const server = spawn(process.execPath, [path.join(dir, 'server.js'), dir, String(BULK_BYTES)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.once('exit', (code) => reject(new Error(`the TLS server exited (${code})`)));
      server.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    });
    const ws = path.join(dir, 'ws');
    await mkdir(ws);
    await writeFile(path.join(ws, 'client.js'), CLIENT);
    const parse = (text: string): Figures => {
      const figures = JSON.parse(text.trim().split('\n')[0]!) as Figures & { error?: string };
      if (figures.error) throw new Error(`the bench client failed: ${figures.error}`);
      return figures;
    };
    const policy = (network: NetworkPolicy) =>
      testPolicy(ws, {
        network,
        environment: { allow: ['PATH', 'HOME', 'LANG'], set: {} },
        limits: { commandTimeoutSeconds: 300, outputBytes: 256 * 1024, memoryMiB: 4096, processes: 512 },
      });
    const launcher = kernelLauncher({
      network: {
        lookup: async (host) =>
          host === 'bench.test'
            ? ['127.0.0.1']
            : host === 'web.bench.test'
              ? [WEB_ADDRESS]
              : (await lookup(host, { all: true })).map((entry) => entry.address),
        // Every check ran on the address the name resolved to; only then is it pointed at the server.
        dial: (address, to) =>
          address === WEB_ADDRESS ? { address: '127.0.0.1', port } : { address, port: to },
      },
    });
    const [proxied, open] = await Promise.all([
      ExecutorClient.spawn({
        policy: policy(
          canonicalAllowlist({ allow: [`bench.test:${port}`, 'web.bench.test', 'registry.npmjs.org'] }),
        ),
        launcher,
      }),
      ExecutorClient.spawn({ policy: policy({ mode: 'on' }), launcher }),
    ]);
    try {
      const inSandbox = async (executor: ExecutorClient, command: string): Promise<string> =>
        parseShell(await executor.callTool('shell', { command, timeout_seconds: 300 })).output;
      const client = `${process.execPath} client.js`;
      const sides = {
        host: async (): Promise<Figures> =>
          parse(
            (
              await run(process.execPath, [
                path.join(ws, 'client.js'),
                'direct',
                'bench.test',
                String(port),
                String(CONNECTIONS),
              ])
            ).stdout,
          ),
        sandboxDirect: async (): Promise<Figures> =>
          parse(await inSandbox(open, `${client} direct bench.test ${port} ${CONNECTIONS}`)),
        proxyWeb: async (): Promise<Figures> =>
          parse(await inSandbox(proxied, `${client} proxy web.bench.test 443 ${CONNECTIONS}`)),
        proxyPort: async (): Promise<Figures> =>
          parse(await inSandbox(proxied, `${client} proxy bench.test ${port} ${CONNECTIONS}`)),
      };
      type Side = keyof typeof sides;
      // Every side in turn, ROUNDS times: on a shared machine one download can land in a quiet
      // second and another in a busy one; the medians are compared, and each round's ratio shown.
      const runs: Record<Side, Figures[]> = { host: [], sandboxDirect: [], proxyWeb: [], proxyPort: [] };
      for (let i = 0; i < ROUNDS; i++) {
        for (const side of Object.keys(sides) as Side[]) runs[side].push(await sides[side]());
      }
      const median = (side: Side, key: 'connectMs' | 'bulkMiBps'): number =>
        quantile(
          runs[side].map((r) => r[key]),
          0.5,
        );
      const connect = (side: Side): number => round(median(side, 'connectMs'), 2);
      const bulk = (side: Side): number => round(median(side, 'bulkMiBps'));
      const npm = await benchNpmInstall(dir, (command) => inSandbox(proxied, command));
      return {
        connectMs: {
          proxyWeb: connect('proxyWeb'),
          proxyPort: connect('proxyPort'),
          sandboxDirect: connect('sandboxDirect'),
          host: connect('host'),
        },
        // The goal's figure: the proxy's cost over the same client in the same kind of sandbox.
        connectAddedMs: {
          proxyWeb: round(median('proxyWeb', 'connectMs') - median('sandboxDirect', 'connectMs'), 2),
          proxyPort: round(median('proxyPort', 'connectMs') - median('sandboxDirect', 'connectMs'), 2),
          proxyWebOverHost: round(median('proxyWeb', 'connectMs') - median('host', 'connectMs'), 2),
        },
        // Each phase's median over the rounds: where the added milliseconds go.
        connectPhasesMs: Object.fromEntries(
          (Object.keys(sides) as Side[]).map((side) => [
            side,
            Object.fromEntries(
              (['tcp', 'proxyAnswer', 'handshake', 'firstByte'] as const).map((phase) => [
                phase,
                round(
                  quantile(
                    runs[side].map((r) => r.phasesMs[phase]),
                    0.5,
                  ),
                  2,
                ),
              ]),
            ),
          ]),
        ),
        bulkHttpsMiBps: {
          proxyWeb: bulk('proxyWeb'),
          proxyPort: bulk('proxyPort'),
          sandboxDirect: bulk('sandboxDirect'),
          host: bulk('host'),
        },
        bulkRatio: round(median('proxyWeb', 'bulkMiBps') / median('sandboxDirect', 'bulkMiBps'), 2),
        bulkRatioOverHost: round(median('proxyWeb', 'bulkMiBps') / median('host', 'bulkMiBps'), 2),
        bulkRatiosPerRound: runs.proxyWeb.map((r, i) =>
          round(r.bulkMiBps / runs.sandboxDirect[i]!.bulkMiBps, 2),
        ),
        ...npm,
      };
    } finally {
      await Promise.all([proxied.shutdown(), open.shutdown()]);
      server.kill();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
/** `npm install is-number` with an empty cache, on the host and inside the sandbox; skipped when the registry is not reachable. */
async function benchNpmInstall(dir: string, sh: (command: string) => Promise<string>): Promise<object> {
  const install =
    'npm install is-number --no-audit --no-fund --no-package-lock --prefer-online --loglevel=error';
  const hostDir = path.join(dir, 'host-npm');
  await mkdir(hostDir);
  const started = performance.now();
  try {
    await run('sh', ['-c', `npm_config_cache=${hostDir}/.cache ${install}`], {
      cwd: hostDir,
      timeout: 120_000,
    });
  } catch (error) {
    return {
      npmInstall: `skipped: the registry is not reachable from the host (${(error as Error).message.split('\n')[0]})`,
    };
  }
  const hostMs = performance.now() - started;
  const t0 = performance.now();
  const out = await sh(
    `mkdir -p sb && cd sb && npm_config_cache=$PWD/.cache ${install} 2>&1 | tail -3; test -f node_modules/is-number/package.json && echo INSTALLED`,
  );
  const sandboxMs = performance.now() - t0;
  if (!out.includes('INSTALLED')) return { npmInstall: `failed in the sandbox: ${out.slice(0, 300)}` };
  return {
    npmInstallMs: { sandboxThroughProxy: Math.round(sandboxMs), host: Math.round(hostMs) },
    npmInstallRatio: round(sandboxMs / hostMs, 2),
  };
}
