import { isIP } from 'node:net';

/**
 * Host patterns of a network allowlist (issue #21): an exact host (`api.example.com`), a `*.`
 * suffix wildcard (`*.github.com`: subdomains at any depth, not `github.com` itself), an IP
 * literal (`127.0.0.1`, `[::1]`), each optionally with `:port`. Nothing matches by substring.
 * An allow pattern without a port means the web ports, 80 and 443; a deny pattern without one
 * means every port. Pure functions: the proxy, the narrowing proof and the settings share them.
 */
export interface HostPattern {
  kind: 'exact' | 'suffix' | 'ip';
  /** Lower case, no trailing dot; for `suffix` the part after `*.`; IPv6 without brackets. */
  host: string;
  /** Undefined: 80 and 443 in an allow list, every port in a deny list. */
  port?: number;
}

/** The ports a pattern without one allows. */
export const WEB_PORTS: readonly number[] = [80, 443];

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A DNS name as the proxy accepts it: ASCII labels, a last label that is not all digits (not an IPv4 in disguise). */
export function isHostName(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.split('.');
  if (!labels.every((label) => LABEL.test(label))) return false;
  // `127.1`, `0x7f000001`, `2130706433`: getaddrinfo reads them as IPv4 addresses.
  const last = labels[labels.length - 1]!;
  return !/^(\d+|0x[0-9a-f]*)$/.test(last);
}

/**
 * A host as a client named it, normalised: lower case, one trailing dot dropped, IPv6 brackets
 * removed. Undefined when it is neither a DNS name nor an IP literal (`127.1`, `a_b`, non-ASCII).
 */
export function normalizeHost(raw: string): { host: string; ip: boolean } | undefined {
  let host = raw.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) {
    host = host.slice(1, -1);
    return isIP(host) === 6 ? { host, ip: true } : undefined;
  }
  if (isIP(host) !== 0) return { host, ip: true };
  if (host.endsWith('.')) host = host.slice(0, -1);
  return isHostName(host) ? { host, ip: false } : undefined;
}

/** Parses one pattern; an error message naming what is wrong otherwise. */
export function parseHostPattern(text: string): HostPattern | string {
  let rest = text.trim().toLowerCase();
  let port: number | undefined;
  const portMatch = /^(.*[^:]):(\d{1,5})$/.exec(rest);
  // An IPv6 literal is written in brackets, so its colons are not a port.
  if (portMatch && (rest.startsWith('[') || !portMatch[1]!.includes(':'))) {
    port = Number(portMatch[2]);
    if (port < 1 || port > 65_535) return `${text}: the port must be 1-65535`;
    rest = portMatch[1]!;
  }
  const withPort = (pattern: Omit<HostPattern, 'port'>): HostPattern =>
    port === undefined ? pattern : { ...pattern, port };
  if (rest.startsWith('*.')) {
    const suffix = rest.slice(2);
    if (!isHostName(suffix) || !suffix.includes('.')) {
      return `${text}: a wildcard is "*." followed by a domain with at least two labels`;
    }
    return withPort({ kind: 'suffix', host: suffix });
  }
  if (rest.includes('*')) return `${text}: "*" is allowed only as a leading "*."`;
  if (rest.startsWith('[') || isIP(rest) !== 0) {
    if (isIP(rest) === 6) return `${text}: write an IPv6 address in brackets, [${rest}]`;
    const normal = normalizeHost(rest);
    return normal?.ip ? withPort({ kind: 'ip', host: normal.host }) : `${text}: not an IP address`;
  }
  const normal = normalizeHost(rest);
  if (!normal) return `${text}: not a host name (letters, digits, "-" and ".")`;
  return withPort({ kind: 'exact', host: normal.host });
}

/** The canonical text of a pattern (what lists hold once resolved). */
export function formatHostPattern(pattern: HostPattern): string {
  const host =
    pattern.kind === 'suffix'
      ? `*.${pattern.host}`
      : isIP(pattern.host) === 6
        ? `[${pattern.host}]`
        : pattern.host;
  return pattern.port === undefined ? host : `${host}:${pattern.port}`;
}

/** Parses a list of patterns, throwing on the first bad one (lists are validated by zod before this). */
export function parseHostPatterns(texts: readonly string[]): HostPattern[] {
  return texts.map((text) => {
    const parsed = parseHostPattern(text);
    if (typeof parsed === 'string') throw new Error(parsed);
    return parsed;
  });
}

function hostMatches(pattern: HostPattern, host: string, ip: boolean): boolean {
  if (pattern.kind === 'ip' || ip) return pattern.kind === 'ip' && ip && pattern.host === host;
  if (pattern.kind === 'exact') return pattern.host === host;
  return host.endsWith(`.${pattern.host}`);
}

/** Whether an allow pattern lets `host:port` through (ports: its own, else 80 and 443). */
export function allowMatches(pattern: HostPattern, host: string, ip: boolean, port: number): boolean {
  const portOk = pattern.port === undefined ? WEB_PORTS.includes(port) : pattern.port === port;
  return portOk && hostMatches(pattern, host, ip);
}

/** Whether a deny pattern refuses `host:port` (ports: its own, else every port). */
export function denyMatches(pattern: HostPattern, host: string, ip: boolean, port: number): boolean {
  return (pattern.port === undefined || pattern.port === port) && hostMatches(pattern, host, ip);
}

/**
 * True when everything `child` allows, `parent` allows too (the narrowing proof's test for one
 * allow pattern). The ports must be the same: an explicit port also lets the name resolve to a
 * loopback address, which a port-less pattern does not (see `addressNeedsExplicitPort`).
 */
export function patternCovers(parent: HostPattern, child: HostPattern): boolean {
  if (parent.port !== child.port) return false;
  if (parent.kind === 'suffix') {
    return (
      child.kind !== 'ip' &&
      (child.host.endsWith(`.${parent.host}`) || (child.kind === 'suffix' && child.host === parent.host))
    );
  }
  return parent.kind === child.kind && parent.host === child.host;
}

/**
 * Addresses a name may resolve to only under a pattern with an explicit port: loopback,
 * unspecified and link-local (cloud metadata) addresses. A listed `api.example.com` whose DNS
 * answers 127.0.0.1 must not open the host's own services on 80 and 443.
 */
export function addressNeedsExplicitPort(address: string): boolean {
  const v4 = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  if (isIP(v4) === 4) {
    return v4.startsWith('127.') || v4.startsWith('0.') || v4.startsWith('169.254.');
  }
  const lower = address.toLowerCase();
  return lower === '::1' || lower === '::' || /^fe[89ab]/.test(lower);
}
