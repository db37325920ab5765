import net from 'node:net';
import { parseHostPattern } from '../shared/network-pattern.js';
import type { NetworkPolicy } from '../shared/policy.js';
import { SANDBOX_PROXY_PORT, SANDBOX_PROXY_SOCKET } from '../shared/sandbox-network.js';

/** Largest CONNECT answer head read before giving up on a local forward. */
const MAX_ANSWER_BYTES = 4096;

/**
 * Under a network allowlist, the sandbox's ways to the harness's proxy (issue #21). npm, pip, git
 * and curl take a proxy as `http://host:port` and none of them a unix socket, so the executor
 * listens on the sandbox's own loopback (its network namespace has nothing else) and passes each
 * connection to the proxy's socket, bound in read-only. Each allowed loopback service the list
 * names by port (`localhost:5432`) is also listened for on that port, through a CONNECT, so a
 * client that knows nothing of proxies (`psql -h localhost`) reaches it. Listening failures are
 * logged, never fatal: a missing way out fails closed.
 */
export function startNetworkForwarders(network: NetworkPolicy, log: (line: string) => void): net.Server[] {
  if (network.mode !== 'allowlist') return [];
  const servers = [listen(SANDBOX_PROXY_PORT, (client) => pipeToProxy(client, undefined), log)];
  const ports = new Set<number>([SANDBOX_PROXY_PORT]);
  for (const text of network.allow) {
    const pattern = parseHostPattern(text);
    if (typeof pattern === 'string' || pattern.port === undefined || ports.has(pattern.port)) continue;
    const loopback =
      (pattern.kind === 'exact' && pattern.host === 'localhost') ||
      (pattern.kind === 'ip' && (pattern.host.startsWith('127.') || pattern.host === '::1'));
    if (!loopback) continue;
    ports.add(pattern.port);
    const target = `${pattern.host.includes(':') ? `[${pattern.host}]` : pattern.host}:${pattern.port}`;
    servers.push(listen(pattern.port, (client) => pipeToProxy(client, target), log));
  }
  return servers;
}

function listen(
  port: number,
  onClient: (client: net.Socket) => void,
  log: (line: string) => void,
): net.Server {
  const server = net.createServer({ pauseOnConnect: true }, onClient);
  server.on('error', (error) => log(`network forwarder on 127.0.0.1:${port}: ${error.message}`));
  server.listen({ host: '127.0.0.1', port });
  server.unref();
  return server;
}

/** Joins a client to the proxy: as it is, or through a CONNECT to `target` first. */
function pipeToProxy(client: net.Socket, target: string | undefined): void {
  const proxy = net.connect(SANDBOX_PROXY_SOCKET);
  client.setNoDelay(true);
  const end = (): void => {
    client.destroy();
    proxy.destroy();
  };
  client.on('error', end);
  proxy.on('error', end);
  client.on('close', end);
  proxy.on('close', end);
  if (target === undefined) {
    client.pipe(proxy);
    proxy.pipe(client);
    client.resume();
    return;
  }
  proxy.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  let answer = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    answer = Buffer.concat([answer, chunk]);
    const headEnd = answer.indexOf('\r\n\r\n');
    if (headEnd < 0) {
      if (answer.length > MAX_ANSWER_BYTES) end();
      return;
    }
    proxy.removeListener('data', onData);
    if (!/^HTTP\/1\.[01] 200 /.test(answer.subarray(0, headEnd).toString('latin1'))) {
      end();
      return;
    }
    const rest = answer.subarray(headEnd + 4);
    if (rest.length > 0) client.write(rest);
    client.pipe(proxy);
    proxy.pipe(client);
    client.resume();
  };
  proxy.on('data', onData);
}
