import path from 'node:path';
import { canonicalAllowlist } from './network-allowlist.js';
import type { PolicyFile, ResolvedPolicy } from './policy.js';

export interface PolicyPlaces {
  /** Absolute, real path of the workspace. */
  workspace: string;
  /** The user's home directory, for `~`. */
  home: string;
}

/** Expands `${workspace}` and `~` and normalises a path pattern to an absolute one. */
export function expandPath(pattern: string, places: PolicyPlaces): string {
  let expanded = pattern.replaceAll('${workspace}', places.workspace);
  if (expanded === '~' || expanded.startsWith('~/')) expanded = places.home + expanded.slice(1);
  if (!path.isAbsolute(expanded)) {
    throw new Error(`path "${pattern}" is not absolute; start it with /, ~/ or \${workspace}/`);
  }
  // Keep glob characters as written; only collapse `.`/`..` and duplicate slashes.
  return path.normalize(expanded).replace(/(.)\/$/, '$1');
}

/** A policy file made concrete for one workspace: every path absolute. */
export function resolvePolicy(file: PolicyFile, places: PolicyPlaces): ResolvedPolicy {
  const expand = (patterns: readonly string[]) => [...new Set(patterns.map((p) => expandPath(p, places)))];
  return {
    name: file.name,
    workspace: places.workspace,
    read: { allow: expand(file.filesystem.read.allow), deny: expand(file.filesystem.read.deny) },
    write: { allow: expand(file.filesystem.write.allow) },
    protected: expand(file.filesystem.protected),
    network: file.network.mode === 'allowlist' ? canonicalAllowlist(file.network) : file.network,
    environment: { allow: [...file.environment.allow], set: { ...file.environment.set } },
    limits: { ...file.limits },
  };
}
