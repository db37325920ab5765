import * as z from 'zod';
import {
  allowMatches,
  denyMatches,
  formatHostPattern,
  type HostPattern,
  normalizeHost,
  parseHostPatterns,
  patternCovers,
} from './network-pattern.js';
import type { NetworkAllowlist, NetworkPolicy } from './policy.js';

/** Why the proxy refused a connection. */
export const NetworkDenialReason = z.enum([
  /** No allow pattern matches the host and port. */
  'not_allowed',
  /** A deny pattern matches. */
  'denied',
  /** Neither a DNS name nor an IP literal (`127.1`, `a_b`, non-ASCII). */
  'invalid_host',
  /** The TLS ClientHello named another host than the CONNECT did, or none. */
  'sni_mismatch',
  /** The name resolved to a loopback or link-local address and its pattern names no port. */
  'local_address',
  /** The name did not resolve, or the upstream did not answer. */
  'unreachable',
  /** Not an HTTP proxy request the proxy understands (an upgrade, a malformed line). */
  'bad_request',
]);
export type NetworkDenialReason = z.infer<typeof NetworkDenialReason>;

/** An allowlist with its patterns parsed once. */
export interface CompiledAllowlist {
  allow: HostPattern[];
  deny: HostPattern[];
}

export function compileAllowlist(
  list: Pick<NetworkAllowlist, 'allow'> & { deny?: string[] },
): CompiledAllowlist {
  return { allow: parseHostPatterns(list.allow), deny: parseHostPatterns(list.deny ?? []) };
}

export type HostVerdict =
  | { allowed: true; host: string; ip: boolean; pattern: HostPattern }
  | { allowed: false; reason: NetworkDenialReason };

/** Whether `host:port` (as a client named it) may be reached under `list`: deny first, then allow. */
export function judgeHost(list: CompiledAllowlist, rawHost: string, port: number): HostVerdict {
  const normal = normalizeHost(rawHost);
  if (!normal || !Number.isInteger(port) || port < 1 || port > 65_535) {
    return { allowed: false, reason: 'invalid_host' };
  }
  const { host, ip } = normal;
  if (list.deny.some((pattern) => denyMatches(pattern, host, ip, port))) {
    return { allowed: false, reason: 'denied' };
  }
  // A pattern naming the port first: it is the one that also admits a loopback address.
  const pattern =
    list.allow.find((candidate) => candidate.port !== undefined && allowMatches(candidate, host, ip, port)) ??
    list.allow.find((candidate) => allowMatches(candidate, host, ip, port));
  return pattern ? { allowed: true, host, ip, pattern } : { allowed: false, reason: 'not_allowed' };
}

/** Canonical, sorted, de-duplicated pattern texts. */
function canonical(texts: readonly string[]): string[] {
  return [...new Set(parseHostPatterns(texts).map(formatHostPattern))].sort();
}

/** A network allowlist policy in canonical form (what `resolvePolicy` and narrowing produce). */
export function canonicalAllowlist(list: {
  allow: string[];
  deny?: string[];
}): Extract<NetworkPolicy, { mode: 'allowlist' }> {
  return { mode: 'allowlist', allow: canonical(list.allow), deny: canonical(list.deny ?? []) };
}

/**
 * The network of a child asking for `requested` under `parent`: off if either is off; under an
 * allowlist parent, only the requested patterns one of the parent's covers, with both deny lists.
 */
export function narrowNetwork(parent: NetworkPolicy, requested: NetworkPolicy | undefined): NetworkPolicy {
  if (parent.mode === 'off' || requested?.mode === 'off') return { mode: 'off' };
  if (requested === undefined || requested.mode === 'on') {
    return parent.mode === 'on' ? { mode: 'on' } : canonicalAllowlist(parent);
  }
  if (parent.mode === 'on') return canonicalAllowlist(requested);
  const parentAllow = parseHostPatterns(parent.allow);
  const allow = parseHostPatterns(requested.allow).filter((child) =>
    parentAllow.some((p) => patternCovers(p, child)),
  );
  return canonicalAllowlist({
    allow: allow.map(formatHostPattern),
    deny: [...parent.deny, ...requested.deny],
  });
}

/** True when `child` reaches nothing `parent` does not (the network axis of `isNarrowerOrEqual`). */
export function networkNarrowerOrEqual(child: NetworkPolicy, parent: NetworkPolicy): boolean {
  if (child.mode === 'off' || parent.mode === 'on') return true;
  if (parent.mode === 'off' || child.mode !== 'allowlist') return false;
  try {
    const parentAllow = parseHostPatterns(parent.allow);
    const childDeny = new Set(canonical(child.deny));
    return (
      parseHostPatterns(child.allow).every((c) => parentAllow.some((p) => patternCovers(p, c))) &&
      canonical(parent.deny).every((d) => childDeny.has(d))
    );
  } catch {
    return false;
  }
}

export const REASON_TEXT: Record<NetworkDenialReason, string> = {
  not_allowed: 'not on the allowlist',
  denied: 'on the deny list',
  invalid_host: 'not a host name',
  sni_mismatch: 'its TLS server name did not match',
  local_address: 'it resolved to a local address',
  unreachable: 'it could not be resolved or reached',
  bad_request: 'not a request the proxy forwards',
};

/** One line saying what the person answered about a refused host (or that nobody did). */
export function describeNetworkDecision(decision: {
  host: string;
  port: number;
  decision: 'once' | 'session' | 'never' | 'refused';
}): string {
  const where = `${decision.host}:${decision.port}`;
  switch (decision.decision) {
    case 'once':
      return `network: allowed ${where} once`;
    case 'session':
      return `network: allowed ${where} for this session`;
    case 'never':
      return `network: never ${where} (this session)`;
    case 'refused':
      return `network: refused ${where} (the question went unanswered)`;
  }
}

/** One line saying what the proxy refused: `network: refused evil.example:443 (not on the allowlist) — curl …`. */
export function describeNetworkDenial(denial: {
  host: string;
  port: number;
  reason: NetworkDenialReason;
  command?: string | undefined;
}): string {
  const command = denial.command ? ` — ${denial.command.split('\n')[0]!.slice(0, 120)}` : '';
  return `network: refused ${denial.host}:${denial.port} (${REASON_TEXT[denial.reason]})${command}`;
}
