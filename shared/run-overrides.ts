import path from 'node:path';
import { canonicalAllowlist } from './network-allowlist.js';
import { isWithin } from './path-within.js';
import { type NetworkSetting, networkFromSetting, type ResolvedPolicy } from './policy.js';

/** Changes to a policy for one run only, from the command line (`--network`, `--add-dir`). */
export interface RunOverrides {
  /** Turn the network on or off, or to an allowlist. */
  network?: NetworkSetting | undefined;
  /** More writable roots: absolute, real paths. */
  addDirs?: readonly string[] | undefined;
}

/**
 * The policy with this run's overrides. An added directory is sandboxed like the workspace: it
 * becomes readable and writable, and every protected or denied path the policy names inside the
 * workspace (`.git`, `.vscode`, `**\/.env`…) is protected or denied inside it too.
 */
export function applyRunOverrides(policy: ResolvedPolicy, overrides: RunOverrides): ResolvedPolicy {
  const chosen = overrides.network ? networkFromSetting(overrides.network) : policy.network;
  const network = chosen.mode === 'allowlist' ? canonicalAllowlist(chosen) : chosen;
  const dirs = (overrides.addDirs ?? []).filter(
    (dir) => !policy.write.allow.some((root) => isWithin(root, dir)),
  );
  if (dirs.length === 0) return { ...policy, network };
  const inWorkspace = (entries: readonly string[]): string[] =>
    entries
      .filter((entry) => entry !== policy.workspace && isWithin(policy.workspace, entry))
      .map((entry) => path.relative(policy.workspace, entry));
  const protectedNames = inWorkspace(policy.protected);
  const deniedNames = inWorkspace(policy.read.deny);
  return {
    ...policy,
    network,
    read: {
      allow: [
        ...policy.read.allow,
        ...dirs.filter((dir) => !policy.read.allow.some((root) => isWithin(root, dir))),
      ],
      deny: [...policy.read.deny, ...dirs.flatMap((dir) => deniedNames.map((name) => path.join(dir, name)))],
    },
    write: { allow: [...policy.write.allow, ...dirs] },
    protected: [
      ...policy.protected,
      ...dirs.flatMap((dir) => protectedNames.map((name) => path.join(dir, name))),
    ],
  };
}
