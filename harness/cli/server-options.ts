import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { withholdValue } from '../sandbox/executor-env.js';
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
 * shorter than 16 characters is refused before anything starts. Whichever it
 * is, no sandbox this process starts gets it (`withholdValue`).
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
