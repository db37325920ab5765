import { type ChildProcess, spawn } from 'node:child_process';
import { parseHostPattern } from '../shared/network-pattern.js';
import type { NetworkPolicy } from '../shared/policy.js';
import {
  SANDBOX_HANDOFF_SOCKET,
  SANDBOX_PROXY_PORT,
  SANDBOX_PROXY_SOCKET,
} from '../shared/sandbox-network.js';
import { distFile } from './dist-file.js';

/**
 * Under a network allowlist, the sandbox's ways to the harness's proxy (issue #21). npm, pip, git
 * and curl take a proxy as `http://host:port` and none of them a unix socket, so a forwarder
 * listens on the sandbox's own loopback (its network namespace has nothing else) and joins each
 * connection to the proxy's socket, bound in read-only. Each allowed loopback service the list
 * names by port (`localhost:5432`) is also listened for on that port, through a CONNECT, so a
 * client that knows nothing of proxies (`psql -h localhost`) reaches it. The forwarder is
 * skate-confine's `--net-forward` (C): a connection to the proxy port leaves the sandbox whole,
 * through the relay's hand-off socket, so no process in here carries its bytes; the others are
 * joined to the proxy's socket with splice(2). It decides nothing (the proxy checks everything),
 * dies with the executor, and a failure to listen is logged, never fatal: a missing way out
 * fails closed.
 */
export function startNetworkForwarders(
  network: NetworkPolicy,
  log: (line: string) => void,
): ChildProcess | undefined {
  if (network.mode !== 'allowlist') return undefined;
  const ways = [String(SANDBOX_PROXY_PORT)];
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
    ways.push(`${pattern.port}=${target}`);
  }
  let forwarder: ChildProcess;
  try {
    forwarder = spawn(
      distFile('bin/skate-confine'),
      ['--net-forward', SANDBOX_PROXY_SOCKET, SANDBOX_HANDOFF_SOCKET, ...ways],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: {},
      },
    );
  } catch (error) {
    log(`network forwarder: ${(error as Error).message}`);
    return undefined;
  }
  forwarder.on('error', (error) => log(`network forwarder: ${error.message}`));
  forwarder.stderr?.on('data', (chunk: Buffer) => log(chunk.toString().trim()));
  forwarder.unref();
  (forwarder.stderr as { unref?: () => void } | null)?.unref?.();
  return forwarder;
}
