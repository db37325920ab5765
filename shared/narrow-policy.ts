import path from 'node:path';
import * as z from 'zod';
import { narrowNetwork, networkNarrowerOrEqual } from './network-allowlist.js';
import { envAllows, isGlob } from './path-patterns.js';
import { isWithin } from './path-within.js';
import { NetworkSetting, networkFromSetting, PolicyLimits, type ResolvedPolicy } from './policy.js';

const AbsolutePath = z
  .string()
  .min(1)
  .refine((p) => path.isAbsolute(p) && !p.includes('\0'), 'an absolute path');

/**
 * What a sub-agent may ask of its parent's policy. Every field can only take
 * away: a request never names anything the parent does not already allow.
 */
export const PolicyRequest = z
  .object({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,63}$/, 'lowercase letters, digits and dashes, starting with a letter')
      .optional(),
    writePaths: z
      .array(AbsolutePath.refine((p) => !isGlob(p), 'a concrete path; write roots cannot be globs'))
      .optional()
      .describe('Write roots wanted; only their overlap with the parent’s write roots is granted.'),
    readOnly: z.boolean().optional().describe('No write roots at all.'),
    network: NetworkSetting.optional().describe(
      '`off`, `on` (as the parent), or `{allow, deny}`: only what the parent’s patterns cover is kept.',
    ),
    denyPaths: z.array(AbsolutePath).optional().describe('More paths to hide; globs allowed.'),
    limits: PolicyLimits.partial().optional(),
  })
  .strict();
export type PolicyRequest = z.infer<typeof PolicyRequest>;

/** `..`, `.`, duplicate and trailing slashes collapsed, as `resolvePolicy` does. */
function normalize(p: string): string {
  return path.posix.normalize(p).replace(/(.)\/$/, '$1');
}

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** The fewest roots covering the same region: duplicates and roots inside other roots dropped. */
function outermost(roots: readonly string[]): string[] {
  const unique = sortedUnique(roots);
  return unique.filter((root) => !unique.some((other) => other !== root && isWithin(other, root)));
}

/** The region both root lists cover, as roots: each root of one that lies inside a root of the other. */
function overlap(a: readonly string[], b: readonly string[]): string[] {
  return outermost([
    ...a.filter((x) => b.some((y) => isWithin(y, x))),
    ...b.filter((y) => a.some((x) => isWithin(x, y))),
  ]);
}

/**
 * True when `candidate`, as a write root, would reach into a path the parent
 * keeps read-only. In the parent a protected path binds the write roots that
 * contain it; a child root placed *inside* it would slip past that rule (the
 * tools and the mount plan protect only what lies inside a root), so such a
 * root is never granted. `roots` and `protectedPaths` are the parent's, normalised.
 */
function insideProtected(
  roots: readonly string[],
  protectedPaths: readonly string[],
  candidate: string,
): boolean {
  return protectedPaths.some(
    (q) =>
      !isGlob(q) && isWithin(q, candidate) && roots.some((r) => isWithin(r, candidate) && isWithin(r, q)),
  );
}

function absoluteConcrete(p: string): boolean {
  return path.isAbsolute(p) && !isGlob(p) && !p.includes('\0');
}

function smaller(parent: number, requested: number | undefined): number {
  return requested !== undefined && Number.isFinite(requested) && requested > 0
    ? Math.min(parent, requested)
    : parent;
}

/**
 * The policy for a sub-agent: the parent's, narrowed by what the sub-agent asks.
 * Never wider than the parent on any axis (see `isNarrowerOrEqual`), whatever
 * the request holds: write roots are the overlap of the requested paths with
 * the parent's (a path inside a parent root is kept as that narrower path, a
 * path around parent roots yields those roots, anything else is dropped), or
 * none when read-only; deny and protected lists only grow; network is off if
 * either side turns it off, and an allowlist keeps only the hosts the parent's covers; each limit is the smaller one. Lists come out
 * sorted and without duplicates, so narrowing twice by the same request
 * changes nothing.
 */
export function narrowPolicy(parent: ResolvedPolicy, request: PolicyRequest): ResolvedPolicy {
  const parentRoots = parent.write.allow.map(normalize).filter(absoluteConcrete);
  const protectedPaths = sortedUnique(parent.protected.map(normalize));
  let roots: string[] = [];
  if (!request.readOnly) {
    const wanted = request.writePaths?.filter(absoluteConcrete).map(normalize);
    roots = (wanted === undefined ? outermost(parentRoots) : overlap(parentRoots, wanted)).filter(
      (root) => !insideProtected(parentRoots, protectedPaths, root),
    );
  }
  const limits = request.limits ?? {};
  return {
    name: `${parent.name}>${request.name ?? 'child'}`,
    workspace: parent.workspace,
    read: {
      allow: sortedUnique(parent.read.allow.map(normalize)),
      deny: sortedUnique(
        [...parent.read.deny, ...(request.denyPaths ?? []).filter((p) => path.isAbsolute(p))].map(normalize),
      ),
    },
    write: { allow: roots },
    protected: protectedPaths,
    network: narrowNetwork(
      parent.network,
      request.network === undefined ? undefined : networkFromSetting(request.network),
    ),
    environment: { allow: sortedUnique(parent.environment.allow), set: { ...parent.environment.set } },
    limits: {
      commandTimeoutSeconds: smaller(parent.limits.commandTimeoutSeconds, limits.commandTimeoutSeconds),
      outputBytes: smaller(parent.limits.outputBytes, limits.outputBytes),
      memoryMiB: smaller(parent.limits.memoryMiB, limits.memoryMiB),
      processes: smaller(parent.limits.processes, limits.processes),
    },
  };
}

/** A deny or protected entry of the parent is kept by the child: the same entry, or a concrete path around it. */
function keeps(childList: readonly string[], entry: string): boolean {
  const normal = normalize(entry);
  return childList.some((c) => {
    const mine = normalize(c);
    return mine === normal || (!isGlob(mine) && !isGlob(normal) && isWithin(mine, normal));
  });
}

/**
 * Checks, axis by axis, that `child` allows nothing `parent` does not: readable
 * roots inside the parent's, every parent deny and protected entry still there,
 * write roots inside the parent's and outside what it protects, no network the
 * parent lacks, no environment it does not pass, and limits no larger.
 */
export function isNarrowerOrEqual(child: ResolvedPolicy, parent: ResolvedPolicy): boolean {
  const parentRead = parent.read.allow.map(normalize);
  const parentWrite = parent.write.allow.map(normalize).filter(absoluteConcrete);
  const parentProtected = parent.protected.map(normalize);
  const checks = [
    child.workspace === parent.workspace,
    child.read.allow.every((r) => path.isAbsolute(r) && parentRead.some((p) => isWithin(p, normalize(r)))),
    parent.read.deny.every((d) => keeps(child.read.deny, d)),
    parent.protected.every((q) => keeps(child.protected, q)),
    child.write.allow.every((w) => {
      if (!absoluteConcrete(w)) return false;
      const root = normalize(w);
      return (
        parentWrite.some((p) => isWithin(p, root)) && !insideProtected(parentWrite, parentProtected, root)
      );
    }),
    networkNarrowerOrEqual(child.network, parent.network),
    child.environment.allow.every((name) => parent.environment.allow.some((p) => envAllows(p, name))),
    Object.entries(child.environment.set).every(
      ([name, value]) =>
        Object.hasOwn(parent.environment.set, name) && parent.environment.set[name] === value,
    ),
    (Object.keys(parent.limits) as (keyof PolicyLimits)[]).every(
      (key) => child.limits[key] <= parent.limits[key],
    ),
  ];
  return checks.every(Boolean);
}
