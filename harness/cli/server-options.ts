import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from '../executor-relay/connection-gate.js';
import { withholdValue } from '../sandbox/executor-env.js';
import { positiveInt } from './cli-flags.js';
import { UsageError } from './usage-error.js';

/** `--listen HOST:PORT` (`[::1]:PORT` for IPv6), as the servers (`executor serve`, `serve`) take it. */
export function parseListen(listen: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(listen);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65_535)
    throw new UsageError(`--listen takes HOST:PORT, e.g. 127.0.0.1:7700; got "${listen}"`);
  return { host: (match[1] ?? match[2])!, port };
}

/**
 * A server's bearer token: from `--token-file`, else the environment variable
 * `envVar`, else a new random one (`generated`: print it once). A token
 * shorter than 16 characters is refused before anything starts, and so is a
 * token file that others may read or write, as ssh refuses such a private key:
 * a warning scrolls by, the token would stay exposed. Whichever it is, no
 * sandbox this process starts gets it (`withholdValue`).
 */
export async function readServerToken(
  tokenFile: string | undefined,
  envVar: string,
): Promise<{ token: string; generated: boolean }> {
  const found = await findServerToken(tokenFile, envVar);
  withholdValue(found.token);
  return found;
}

async function findServerToken(
  tokenFile: string | undefined,
  envVar: string,
): Promise<{ token: string; generated: boolean }> {
  if (tokenFile) {
    const info = await stat(tokenFile).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read the token file ${tokenFile}: ${error.code ?? error.message}`);
    });
    // A pipe or `/dev/stdin` (`--token-file <(pass show skate)`) has no permissions of its own to check.
    if (info.isFile() && (info.mode & 0o077) !== 0) {
      const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
      throw new UsageError(
        `permissions ${mode} for the token file ${tokenFile} are too open: others could read the token; make it readable by its owner only (chmod 600 ${tokenFile})`,
      );
    }
    const token = (await readFile(tokenFile, 'utf8')).trim();
    if (token.length < 16) throw new UsageError(`the token in ${tokenFile} is shorter than 16 characters`);
    return { token, generated: false };
  }
  const fromEnv = process.env[envVar];
  if (fromEnv) {
    if (fromEnv.length < 16) throw new UsageError(`${envVar} is shorter than 16 characters`);
    return { token: fromEnv, generated: false };
  }
  return { token: randomBytes(24).toString('base64url'), generated: true };
}

/** `--cors ORIGIN`: a browser origin as it sends it, `scheme://host[:port]`, nothing after. */
export function parseCorsOrigin(value: string): string {
  let origin: string | undefined;
  try {
    origin = new URL(value).origin;
  } catch {
    origin = undefined;
  }
  if (origin === undefined || origin === 'null' || origin !== value) {
    throw new UsageError(`--cors takes an origin such as https://app.example.com:8443, not "${value}"`);
  }
  return origin;
}

/**
 * The connection flags both servers take. The two caps have no parse default: `connectionLimits`
 * applies the server's own, which `skate serve` raises with its session and run caps.
 */
export const CONNECTION_OPTIONS = {
  'max-connections': { type: 'string' },
  'max-connections-per-address': { type: 'string' },
  'header-timeout': { type: 'string', default: String(DEFAULT_CONNECTION_LIMITS.headerTimeoutMs / 1000) },
  'allow-host': { type: 'string', multiple: true },
} as const;

/** `--max-connections`, `--max-connections-per-address`, `--header-timeout` as limits; a cap not given is `defaults`'. */
export function connectionLimits(
  values: {
    'max-connections'?: string | undefined;
    'max-connections-per-address'?: string | undefined;
    'header-timeout': string;
  },
  defaults: Pick<ConnectionLimits, 'maxConnections' | 'maxConnectionsPerAddress'> = DEFAULT_CONNECTION_LIMITS,
): ConnectionLimits {
  const cap = (flag: string, value: string | undefined, fallback: number): number =>
    value === undefined ? fallback : positiveInt(flag, value);
  return {
    maxConnections: cap('--max-connections', values['max-connections'], defaults.maxConnections),
    maxConnectionsPerAddress: cap(
      '--max-connections-per-address',
      values['max-connections-per-address'],
      defaults.maxConnectionsPerAddress,
    ),
    headerTimeoutMs: positiveInt('--header-timeout', values['header-timeout']) * 1000,
  };
}

/** Connections one client may need beyond a stream per session and per run: its posts and idle keep-alive sockets. */
const CONNECTION_SLACK = 16;

/**
 * The connection caps when not given: the shared defaults, or more when `--max-sessions` and
 * `--max-runs` let one client (one address: a backend, or every client behind a reverse proxy)
 * hold more streams than that (an events stream per session, a prompt's per run, and
 * `CONNECTION_SLACK`), so that raising them does not turn that client's next connection into a reset.
 */
export function serveConnectionDefaults(
  maxSessions: number,
  maxRuns: number,
): Pick<ConnectionLimits, 'maxConnections' | 'maxConnectionsPerAddress'> {
  const perAddress = Math.max(
    DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress,
    maxSessions + maxRuns + CONNECTION_SLACK,
  );
  return {
    maxConnectionsPerAddress: perAddress,
    maxConnections: Math.max(DEFAULT_CONNECTION_LIMITS.maxConnections, perAddress),
  };
}

/** `--allow-host NAME`: a host name as a Host header carries it, without a port. */
export function parseAllowedHost(value: string): string {
  if (!/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/i.test(value)) {
    throw new UsageError(`--allow-host takes a host name such as skate.example.com, not "${value}"`);
  }
  return value.toLowerCase();
}
