import { isIP } from 'node:net';

/** True for an address that only this machine can reach: 127.0.0.0/8, ::1, `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** The host name of a `Host` header (`name`, `name:port`, `[v6]:port`), lowercased; undefined when it is not one. */
function hostName(header: string): string | undefined {
  if (header.length > 255 || /[\s/?#@\\]/.test(header)) return undefined;
  try {
    return new URL(`http://${header}`).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * A check of the `Host` header against DNS rebinding: a page on another site
 * whose name is made to resolve to this machine reaches a loopback server
 * under its own name. A server bound to loopback therefore answers only
 * requests addressed to an IP literal, `localhost`, or a name in `allowed`
 * (`--allow-host`, e.g. for a reverse proxy that passes the public name on).
 * A server bound to another address knows its names only through `allowed`:
 * with none given, every Host is accepted. The port is not checked, so
 * tunnels and proxies on other ports keep working.
 */
export function hostCheck(
  boundHost: string,
  allowed: readonly string[],
): (header: string | undefined) => boolean {
  const names = new Set(allowed.map((name) => name.toLowerCase()));
  const loopback = isLoopbackHost(boundHost);
  if (!loopback && names.size === 0) return () => true;
  if (loopback) names.add('localhost');
  return (header) => {
    const name = header === undefined ? undefined : hostName(header);
    if (name === undefined) return false;
    return isIP(name) !== 0 || names.has(name);
  };
}

/** The Host header as a message may quote it: short, printable. */
export function quotedHost(header: string | undefined): string {
  if (header === undefined) return 'no Host header';
  const shown = header.replace(/[^\x20-\x7e]/g, '?');
  return `Host "${shown.length > 80 ? `${shown.slice(0, 80)}…` : shown}"`;
}
