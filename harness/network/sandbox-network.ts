import { rmSync } from 'node:fs';
import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResolvedPolicy } from '../../shared/policy.js';
import {
  CA_BUNDLE_NAME,
  HANDOFF_SOCKET_NAME,
  PROXY_SOCKET_NAME,
  SANDBOX_CA_BUNDLE,
  SANDBOX_NET_DIR,
  SANDBOX_PROXY_URL,
} from '../../shared/sandbox-network.js';
import type { MountStep } from '../sandbox/mount-plan.js';
import {
  type AllowlistProxy,
  type AllowlistProxyOptions,
  type ProxyLookup,
  startAllowlistProxy,
} from './allowlist-proxy.js';
import { NetworkGate } from './network-gate.js';
import { NETWORK_DIR_PREFIX, recordOwner, sweepStaleNetworkDirs } from './stale-network-dirs.js';

export interface SandboxNetworkOptions {
  /** The agent's gate (its live list, where refusals go); a sandbox of its own gets one made here. */
  gate?: NetworkGate | undefined;
  /** The proxy's resolver (tests). */
  lookup?: ProxyLookup | undefined;
  /** Where the proxy's connections really go (tests). */
  dial?: AllowlistProxyOptions['dial'];
  /** Where the host's CA bundle is; default what this process trusts (see `hostCaBundle`). */
  caBundle?: string | undefined;
}

/** What a sandbox with any network needs on top of its mounts: a bind, variables, and a proxy to stop. */
export interface SandboxNetwork {
  steps: MountStep[];
  env: Record<string, string>;
  /** The proxy serving this sandbox, under an allowlist. */
  proxy?: AllowlistProxy;
  release(): Promise<void>;
}

/**
 * The CA bundle the host trusts: what Node was told to add (`NODE_EXTRA_CA_CERTS`), else
 * OpenSSL's file (`SSL_CERT_FILE`), else Debian's and Red Hat's usual places. Behind a
 * TLS-intercepting proxy this is what makes `fetch` in a command work.
 */
export async function hostCaBundle(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const candidates = [
    env.NODE_EXTRA_CA_CERTS,
    env.SSL_CERT_FILE,
    '/etc/ssl/certs/ca-certificates.crt',
    '/etc/pki/tls/certs/ca-bundle.crt',
  ];
  for (const file of candidates) {
    if (!file || !path.isAbsolute(file)) continue;
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile() && info.size < 16 * 1024 * 1024) return file;
  }
  return undefined;
}

/** Variables that point every common tool at the proxy: curl, npm, pip, git, Python, Node ≥ 22.21/24.5. */
export function proxyEnvironment(): Record<string, string> {
  const url = SANDBOX_PROXY_URL;
  // The sandbox's own loopback is its own (a dev server a command started): not through the proxy.
  const local = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    NO_PROXY: local,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
    no_proxy: local,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    npm_config_noproxy: local,
    PIP_PROXY: url,
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.proxy',
    GIT_CONFIG_VALUE_0: url,
    // Node's fetch reads the variables above only when told (Node 22.21+, 24.5+); older ones fail closed.
    NODE_USE_ENV_PROXY: '1',
  };
}

/** Variables that make the common tools trust `bundle` (a path inside the sandbox). */
export function caEnvironment(bundle: string): Record<string, string> {
  return {
    NODE_EXTRA_CA_CERTS: bundle,
    SSL_CERT_FILE: bundle,
    REQUESTS_CA_BUNDLE: bundle,
    CURL_CA_BUNDLE: bundle,
    PIP_CERT: bundle,
    GIT_SSL_CAINFO: bundle,
    npm_config_cafile: bundle,
  };
}

/** The sweep of directories dead harnesses left (SIGKILL skips the exit handler below): once per process. */
let swept: Promise<unknown> | undefined;

/** Network directories not yet released, removed at exit if still there (a TUI closed by SIGHUP exits without releasing). */
const unreleased = new Set<string>();
let removeAtExit = false;

function track(dir: string): void {
  unreleased.add(dir);
  if (removeAtExit) return;
  removeAtExit = true;
  process.on('exit', () => {
    for (const left of unreleased) rmSync(left, { recursive: true, force: true });
  });
}

/**
 * Prepares a sandbox's network beyond its namespace: for `on` and an allowlist, a private host
 * directory bound read-only at `SANDBOX_NET_DIR` with a copy of the host's CA bundle; under an
 * allowlist also the proxy, listening on a unix socket in that directory (the sandbox's only
 * egress: it keeps its own network namespace, with no route anywhere). Undefined for `off`.
 */
export async function prepareSandboxNetwork(
  policy: ResolvedPolicy,
  options: SandboxNetworkOptions = {},
): Promise<SandboxNetwork | undefined> {
  const network = policy.network;
  if (network.mode === 'off') return undefined;
  swept ??= sweepStaleNetworkDirs().catch(() => undefined);
  await swept;
  const dir = await mkdtemp(path.join(tmpdir(), NETWORK_DIR_PREFIX));
  track(dir);
  const release = async (proxy?: AllowlistProxy): Promise<void> => {
    await proxy?.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    unreleased.delete(dir);
  };
  try {
    await recordOwner(dir);
    const env: Record<string, string> = {};
    const bundle = options.caBundle ?? (await hostCaBundle());
    if (bundle) {
      await copyFile(bundle, path.join(dir, CA_BUNDLE_NAME));
      Object.assign(env, caEnvironment(SANDBOX_CA_BUNDLE));
    }
    let proxy: AllowlistProxy | undefined;
    if (network.mode === 'allowlist') {
      const gate = options.gate ?? new NetworkGate();
      gate.set(network);
      proxy = await startAllowlistProxy(path.join(dir, PROXY_SOCKET_NAME), {
        gate,
        handoffPath: path.join(dir, HANDOFF_SOCKET_NAME),
        ...(options.lookup && { lookup: options.lookup }),
        ...(options.dial && { dial: options.dial }),
      });
      Object.assign(env, proxyEnvironment());
    }
    return {
      steps: [{ op: 'ro-bind', src: dir, dest: SANDBOX_NET_DIR }],
      env,
      ...(proxy && { proxy }),
      release: () => release(proxy),
    };
  } catch (error) {
    await release();
    throw error;
  }
}
