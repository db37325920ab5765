import { execFile, spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { kernelLauncher } from '../../harness/sandbox/kernel-launcher.js';
import { canonicalAllowlist } from '../../shared/network-allowlist.js';
import { testPolicy } from '../support/policies.js';
import { parseShell } from '../support/sandboxed-executor.js';
import { quantile, round } from './stats.js';

const run = promisify(execFile);
const CONNECTIONS = 200;
/** Direct and proxied runs, alternating. */
const ROUNDS = 3;
const BULK_BYTES = 256 * 1024 * 1024;

/**
 * One client for both sides: `direct` connects to the server, `proxy` goes through the sandbox's
 * forwarder and the harness's proxy (CONNECT). Prints the median time from connect to the first
 * byte of an HTTPS answer on a new connection, and the rate of one bulk download.
 */
const CLIENT = `
const net = require('node:net'), tls = require('node:tls');
const [mode, host, port, count, bulk] = process.argv.slice(2);
function open() {
  return new Promise((resolve, reject) => {
    const raw = mode === 'direct'
      ? net.connect(Number(port), '127.0.0.1')
      : net.connect(3128, '127.0.0.1', () => raw.write('CONNECT ' + host + ':' + port + ' HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'));
    raw.on('error', reject);
    const secure = () => {
      const s = tls.connect({ socket: raw, servername: host, rejectUnauthorized: false }, () => resolve(s));
      s.on('error', reject);
    };
    if (mode === 'direct') raw.once('connect', secure);
    else raw.once('data', (d) => (String(d).startsWith('HTTP/1.1 200') ? secure() : reject(new Error(String(d)))));
  });
}
function get(path, sink) {
  return open().then((s) => new Promise((resolve) => {
    s.write('GET ' + path + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\nConnection: close\\r\\n\\r\\n');
    let first = true, bytes = 0;
    s.on('data', (d) => { if (first) { first = false; sink.first(); } bytes += d.length; });
    s.on('end', () => resolve(bytes));
  }));
}
(async () => {
  const times = [];
  for (let i = 0; i < Number(count); i++) {
    const t0 = process.hrtime.bigint();
    await get('/small', { first: () => times.push(Number(process.hrtime.bigint() - t0) / 1e6) });
  }
  times.sort((a, b) => a - b);
  const t0 = process.hrtime.bigint();
  const bytes = await get('/bulk', { first() {} });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(JSON.stringify({ connectMs: times[times.length >> 1], bulkMiBps: bytes / 1048576 / seconds, bytes }));
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

interface Figures {
  connectMs: number;
  bulkMiBps: number;
}

/**
 * The allowlist proxy's cost (issue #21): a new HTTPS connection through the sandbox's forwarder
 * and the proxy against one made directly on the host, both to a loopback TLS server; a bulk
 * download through the tunnel against the same download direct; and `npm install` of a small
 * package inside the sandbox (through the proxy) against the host, each with an empty cache.
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
    const parse = (text: string): Figures => JSON.parse(text.trim().split('\n')[0]!) as Figures;
    try {
      const directOnce = async (): Promise<Figures> =>
        parse(
          (
            await run(process.execPath, [
              path.join(ws, 'client.js'),
              'direct',
              'bench.test',
              String(port),
              String(CONNECTIONS),
              '1',
            ])
          ).stdout,
        );
      const executor = await ExecutorClient.spawn({
        policy: testPolicy(ws, {
          network: canonicalAllowlist({ allow: [`bench.test:${port}`, 'registry.npmjs.org'] }),
          environment: { allow: ['PATH', 'HOME', 'LANG'], set: {} },
          limits: { commandTimeoutSeconds: 300, outputBytes: 256 * 1024, memoryMiB: 4096, processes: 512 },
        }),
        launcher: kernelLauncher({
          network: {
            lookup: async (host) =>
              host === 'bench.test'
                ? ['127.0.0.1']
                : (await lookup(host, { all: true })).map((entry) => entry.address),
          },
        }),
      });
      try {
        const sh = async (command: string): Promise<string> =>
          parseShell(await executor.callTool('shell', { command, timeout_seconds: 300 })).output;
        const proxiedOnce = async (): Promise<Figures> =>
          parse(await sh(`${process.execPath} client.js proxy bench.test ${port} ${CONNECTIONS} 1`));
        // Direct and proxied alternate, ROUNDS times each: on a shared machine one download can
        // land in a quiet second and the other in a busy one; the median of each is compared.
        const directRuns: Figures[] = [];
        const proxiedRuns: Figures[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          directRuns.push(await directOnce());
          proxiedRuns.push(await proxiedOnce());
        }
        const median = (runs: Figures[], key: keyof Figures): number =>
          quantile(
            runs.map((r) => r[key]),
            0.5,
          );
        const direct = {
          connectMs: median(directRuns, 'connectMs'),
          bulkMiBps: median(directRuns, 'bulkMiBps'),
        };
        const proxied = {
          connectMs: median(proxiedRuns, 'connectMs'),
          bulkMiBps: median(proxiedRuns, 'bulkMiBps'),
        };
        const npm = await benchNpmInstall(dir, sh);
        return {
          connectMs: { proxy: round(proxied.connectMs, 2), direct: round(direct.connectMs, 2) },
          connectAddedMs: round(proxied.connectMs - direct.connectMs, 2),
          bulkHttpsMiBps: { proxy: round(proxied.bulkMiBps), direct: round(direct.bulkMiBps) },
          bulkRatio: round(proxied.bulkMiBps / direct.bulkMiBps, 2),
          bulkRatiosPerRound: proxiedRuns.map((r, i) => round(r.bulkMiBps / directRuns[i]!.bulkMiBps, 2)),
          ...npm,
        };
      } finally {
        await executor.shutdown();
      }
    } finally {
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
