import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PathGuard } from '../../../executor/path-guard.js';
import { planDispatch } from '../../../harness/agents/dispatch-plan.js';
import type { AgentDefinition } from '../../../shared/agent-definition.js';
import { isNarrowerOrEqual, narrowPolicy, PolicyRequest } from '../../../shared/narrow-policy.js';
import { isWithin } from '../../../shared/path-within.js';
import type { PolicyLimits, ResolvedPolicy } from '../../../shared/policy.js';

const normalize = (p: string): string => path.posix.normalize(p).replace(/(.)\/$/, '$1');

/**
 * One request that asks for what two successive requests ask for (what the
 * property below checks narrowPolicy against): write paths are where both
 * overlap, the network off if either turns it off, the lower of each limit.
 */
function combineRequests(first: PolicyRequest, second: PolicyRequest): PolicyRequest {
  const overlap = (a: string[], b: string[]): string[] => [
    ...a.filter((x) => b.some((y) => isWithin(y, x))),
    ...b.filter((y) => a.some((x) => isWithin(x, y))),
  ];
  const writePaths =
    first.writePaths === undefined
      ? second.writePaths
      : second.writePaths === undefined
        ? first.writePaths
        : overlap(first.writePaths.map(normalize), second.writePaths.map(normalize));
  const network =
    first.network === 'off' || second.network === 'off' ? 'off' : (first.network ?? second.network);
  const limits: Partial<PolicyLimits> = { ...first.limits };
  for (const [key, value] of Object.entries(second.limits ?? {}) as [keyof PolicyLimits, number][]) {
    const before = limits[key];
    limits[key] = before === undefined ? value : Math.min(before, value);
  }
  return {
    name: `${first.name ?? 'child'}>${second.name ?? 'child'}`,
    ...(writePaths !== undefined && { writePaths }),
    ...((first.readOnly || second.readOnly) && { readOnly: true }),
    ...(network !== undefined && { network }),
    denyPaths: [...(first.denyPaths ?? []), ...(second.denyPaths ?? [])],
    limits,
  };
}

// A small tree, so that generated policies and requests keep landing on each other's paths.
// None of these exist on the test machine, so PathGuard's realpath leaves them as they are.
const TREE = [
  '/',
  '/ws',
  '/ws2',
  '/w',
  '/ws/src',
  '/ws/src/a',
  '/ws/src/.env',
  '/ws/.env',
  '/ws/.git',
  '/ws/.git/hooks',
  '/ws/.git/hooks/pre-commit',
  '/ws/.skate',
  '/ws/.skate/plan.md',
  '/ws2/src',
];

const cleanPath = fc.constantFrom(...TREE);

/** What a sub-agent might send: `..` detours, `.` and `//`, trailing slashes, the root. */
const rawPath = fc
  .tuple(cleanPath, fc.constantFrom('', '/', '/.', '//', '/../ws', '/src/..', '/../..', '/../ws2'))
  .map(([p, suffix]) => (p === '/' ? suffix || '/' : `${p}${suffix}`))
  .map((p) => (p.startsWith('/') ? p : `/${p}`));

const denyPattern = fc.oneof(cleanPath, fc.constantFrom('/ws/**/.env', '/ws/*/hooks', '/**/.git'));
const limitsArb = fc.record({
  commandTimeoutSeconds: fc.integer({ min: 1, max: 1000 }),
  outputBytes: fc.integer({ min: 1, max: 1_000_000 }),
  memoryMiB: fc.integer({ min: 1, max: 10_000 }),
  processes: fc.integer({ min: 1, max: 5000 }),
});

/** Half the time shaped like the shipped policies, half the time anything. */
const parentArb: fc.Arbitrary<ResolvedPolicy> = fc.record({
  name: fc.constant('parent'),
  workspace: fc.constant('/ws'),
  read: fc.record({
    allow: fc.oneof(fc.constant<string[]>(['/']), fc.array(cleanPath, { minLength: 1, maxLength: 3 })),
    deny: fc.array(denyPattern, { maxLength: 3 }),
  }),
  write: fc.record({
    allow: fc.oneof(
      fc.constantFrom<string[][]>(['/ws'], ['/ws/.skate/plan.md'], []),
      fc.array(cleanPath, { maxLength: 4 }),
    ),
  }),
  protected: fc.oneof(
    fc.constant<string[]>(['/ws/.git', '/ws/.skate']),
    fc.array(fc.oneof(cleanPath, fc.constant('/ws/**/.envrc')), { maxLength: 3 }),
  ),
  network: fc.oneof(
    fc.record({ mode: fc.constantFrom('off' as const, 'on' as const) }),
    fc.record({
      mode: fc.constant('allowlist' as const),
      allow: fc.subarray(['*.github.com', 'api.github.com', 'registry.npmjs.org', 'localhost:5432']),
      deny: fc.subarray(['gist.github.com']),
    }),
  ),
  environment: fc.record({
    allow: fc.subarray(['PATH', 'HOME', 'LC_*', 'X_*', '*']),
    set: fc.dictionary(fc.constantFrom('A', 'B', 'SKATE_SANDBOX'), fc.constantFrom('1', '2')),
  }),
  limits: limitsArb,
});

const requestArb: fc.Arbitrary<PolicyRequest> = fc.record(
  {
    name: fc.constantFrom('helper', 'reviewer', 'x1'),
    // Duplicates on purpose.
    writePaths: fc
      .array(rawPath, { maxLength: 4 })
      .chain((paths) => fc.shuffledSubarray([...paths, ...paths])),
    readOnly: fc.boolean(),
    network: fc.constantFrom('off' as const, 'on' as const),
    denyPaths: fc.array(fc.oneof(rawPath, denyPattern), { maxLength: 3 }),
    limits: fc.record(
      {
        commandTimeoutSeconds: fc.integer({ min: 1, max: 2000 }),
        outputBytes: fc.integer({ min: 1, max: 2_000_000 }),
        memoryMiB: fc.integer({ min: 1, max: 20_000 }),
        processes: fc.integer({ min: 1, max: 10_000 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

const probes = fc.array(cleanPath, { minLength: 1, maxLength: 8 });

function withoutName(policy: ResolvedPolicy): Omit<ResolvedPolicy, 'name'> {
  const { name: _name, ...rest } = policy;
  return rest;
}

async function succeeds(attempt: () => Promise<unknown>): Promise<boolean> {
  try {
    await attempt();
    return true;
  } catch {
    return false;
  }
}

describe('narrowPolicy (properties)', () => {
  it('accepts every generated request as a valid PolicyRequest', () => {
    fc.assert(fc.property(requestArb, (request) => PolicyRequest.safeParse(request).success));
  });

  it('never widens any axis', () => {
    fc.assert(
      fc.property(parentArb, requestArb, (parent, request) => {
        expect(isNarrowerOrEqual(narrowPolicy(parent, request), parent)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('never widens through an agent definition, then the spawn call narrowing it again', () => {
    const wishArb = fc.record(
      {
        write_paths: fc.array(rawPath, { maxLength: 3 }),
        network: fc.constantFrom('off' as const, 'on' as const),
        read_only: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(parentArb, wishArb, wishArb, fc.boolean(), (parent, asked, wish, forceReadOnly) => {
        const definition: AgentDefinition = {
          name: 'helper',
          description: 'd',
          prompt: 'p',
          scope: 'workspace',
          file: '/ws/.skate/agents/helper.md',
          sha256: '0'.repeat(64),
          ...(asked.write_paths && { write_paths: asked.write_paths }),
          ...(asked.network && { network: asked.network }),
        };
        const planned = planDispatch(
          { agent: 'helper', ...wish },
          { parent, agents: [{ definition, usable: true }], agentId: 'agent-1', forceReadOnly, maxTurns: 30 },
        );
        if (!planned.ok) return;
        expect(isNarrowerOrEqual(planned.plan.policy, parent)).toBe(true);
        if (forceReadOnly || wish.read_only) expect(planned.plan.policy.write.allow).toEqual([]);
        if (asked.network === 'off') expect(planned.plan.policy.network.mode).toBe('off');
      }),
      { numRuns: 500 },
    );
  });

  it('lets the tools read and write nothing the parent would refuse', async () => {
    await fc.assert(
      fc.asyncProperty(parentArb, requestArb, probes, async (parent, request, paths) => {
        const child = narrowPolicy(parent, request);
        const [childGuard, parentGuard] = [new PathGuard(child), new PathGuard(parent)];
        // Every root granted, and a file in it, besides the random probes.
        const granted = child.write.allow.flatMap((root) => [root, path.join(root, 'f')]);
        for (const p of [...paths, ...granted]) {
          if (await succeeds(() => childGuard.forWrite(p))) {
            expect(await succeeds(() => parentGuard.forWrite(p)), `write ${p}`).toBe(true);
          }
          if (await succeeds(() => childGuard.forRead(p))) {
            expect(await succeeds(() => parentGuard.forRead(p)), `read ${p}`).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(parentArb, requestArb, (parent, request) => {
        const once = narrowPolicy(parent, request);
        expect(withoutName(narrowPolicy(once, request))).toEqual(withoutName(once));
      }),
      { numRuns: 500 },
    );
  });

  it('narrowing twice equals narrowing once by both requests', () => {
    fc.assert(
      fc.property(parentArb, requestArb, requestArb, (parent, first, second) => {
        const twice = narrowPolicy(narrowPolicy(parent, first), second);
        expect(narrowPolicy(parent, combineRequests(first, second))).toEqual(twice);
      }),
      { numRuns: 500 },
    );
  });

  it('gives no write roots to a read-only request, nor to any child of a read-only parent', () => {
    fc.assert(
      fc.property(parentArb, requestArb, (parent, request) => {
        expect(narrowPolicy(parent, { ...request, readOnly: true }).write.allow).toEqual([]);
        const readOnlyParent = { ...parent, write: { allow: [] } };
        expect(narrowPolicy(readOnlyParent, request).write.allow).toEqual([]);
      }),
    );
  });

  it('keeps every write root inside one of the parent’s', () => {
    fc.assert(
      fc.property(parentArb, requestArb, (parent, request) => {
        for (const root of narrowPolicy(parent, request).write.allow) {
          expect(path.isAbsolute(root) && !root.includes('..') && !/.\/$/.test(root)).toBe(true);
          expect(parent.write.allow.some((p) => p === '/' || root === p || root.startsWith(`${p}/`))).toBe(
            true,
          );
        }
      }),
    );
  });
});

const parent: ResolvedPolicy = {
  name: 'execute',
  workspace: '/ws',
  read: { allow: ['/'], deny: ['/root/.ssh', '/ws/**/.env'] },
  write: { allow: ['/ws'] },
  protected: ['/ws/.git', '/ws/.skate'],
  network: { mode: 'on' },
  environment: { allow: ['PATH', 'LC_*'], set: { SKATE_SANDBOX: '1' } },
  limits: { commandTimeoutSeconds: 300, outputBytes: 1000, memoryMiB: 4096, processes: 512 },
};

describe('narrowPolicy (examples)', () => {
  it('keeps a requested path inside a parent root as the narrower path', () => {
    const child = narrowPolicy(parent, { name: 'docs', writePaths: ['/ws/docs/', '/ws/src/../lib'] });
    expect(child.name).toBe('execute>docs');
    expect(child.write.allow).toEqual(['/ws/docs', '/ws/lib']);
  });

  it('drops paths outside every parent root, including look-alike prefixes and `..` escapes', () => {
    const child = narrowPolicy(parent, { writePaths: ['/ws2', '/w', '/ws/../etc', '/etc/passwd'] });
    expect(child.write.allow).toEqual([]);
    expect(child.name).toBe('execute>child');
  });

  it('gives only the overlap for a path around the parent roots', () => {
    expect(narrowPolicy(parent, { writePaths: ['/'] }).write.allow).toEqual(['/ws']);
  });

  it('keeps the parent roots when no write paths are asked for, and none when read-only', () => {
    expect(narrowPolicy(parent, {}).write.allow).toEqual(['/ws']);
    expect(narrowPolicy(parent, { readOnly: true, writePaths: ['/ws/docs'] }).write.allow).toEqual([]);
  });

  it('never grants a root inside a protected path', () => {
    const child = narrowPolicy(parent, { writePaths: ['/ws/.git/hooks', '/ws/.git', '/ws/src'] });
    expect(child.write.allow).toEqual(['/ws/src']);
    expect(child.protected).toEqual(['/ws/.git', '/ws/.skate']);
  });

  it('keeps a parent root that the parent itself placed inside a protected path (the plan file)', () => {
    const plan = { ...parent, write: { allow: ['/ws/.skate/plan.md'] } };
    expect(narrowPolicy(plan, { writePaths: ['/ws'] }).write.allow).toEqual(['/ws/.skate/plan.md']);
  });

  it('adds deny paths, turns the network off on request only, and takes the smaller limits', () => {
    const child = narrowPolicy(parent, {
      denyPaths: ['/ws/secrets/', '/ws/**/*.pem'],
      network: 'off',
      limits: { memoryMiB: 512, processes: 100_000 },
    });
    expect(child.read.deny).toEqual(['/root/.ssh', '/ws/**/*.pem', '/ws/**/.env', '/ws/secrets']);
    expect(child.network.mode).toBe('off');
    expect(child.limits).toEqual({
      commandTimeoutSeconds: 300,
      outputBytes: 1000,
      memoryMiB: 512,
      processes: 512,
    });
    const offParent = { ...parent, network: { mode: 'off' as const } };
    expect(narrowPolicy(offParent, { network: 'on' }).network.mode).toBe('off');
  });

  it('rejects requests that are not absolute or ask for glob write roots', () => {
    expect(PolicyRequest.safeParse({ writePaths: ['src'] }).success).toBe(false);
    expect(PolicyRequest.safeParse({ writePaths: ['/ws/*'] }).success).toBe(false);
    expect(PolicyRequest.safeParse({ denyPaths: ['~/.ssh'] }).success).toBe(false);
    expect(PolicyRequest.safeParse({ limits: { memoryMiB: -1 } }).success).toBe(false);
    expect(PolicyRequest.safeParse({ environment: { allow: ['*'] } }).success).toBe(false);
  });
});

describe('isNarrowerOrEqual', () => {
  it('holds for a policy and itself', () => {
    expect(isNarrowerOrEqual(parent, parent)).toBe(true);
  });

  it('catches a widening on each axis on its own', () => {
    const wider: [string, ResolvedPolicy][] = [
      ['deny dropped', { ...parent, read: { ...parent.read, deny: ['/root/.ssh'] } }],
      ['protected dropped', { ...parent, protected: ['/ws/.git'] }],
      ['write root outside', { ...parent, write: { allow: ['/ws', '/tmp'] } }],
      ['write root in protected', { ...parent, write: { allow: ['/ws/.git/hooks'] } }],
      ['environment allow', { ...parent, environment: { ...parent.environment, allow: ['*'] } }],
      ['environment set', { ...parent, environment: { ...parent.environment, set: { X: '1' } } }],
      ['limit', { ...parent, limits: { ...parent.limits, processes: 513 } }],
    ];
    for (const [axis, policy] of wider) expect(isNarrowerOrEqual(policy, parent), axis).toBe(false);
    const someRoots = { ...parent, read: { ...parent.read, allow: ['/usr', '/ws'] } };
    const otherRoot = { ...someRoots, read: { ...someRoots.read, allow: ['/ws', '/wsx'] } };
    expect(isNarrowerOrEqual(otherRoot, someRoots), 'read root').toBe(false);
    expect(isNarrowerOrEqual(parent, someRoots), 'read root /').toBe(false);
    const offParent = { ...parent, network: { mode: 'off' as const } };
    expect(isNarrowerOrEqual(parent, offParent), 'network').toBe(false);
  });

  it('accepts narrower forms: a wider deny around a parent entry, a prefix covered by LC_*', () => {
    const child: ResolvedPolicy = {
      ...parent,
      read: { allow: ['/ws'], deny: ['/root', '/ws/**/.env'] },
      environment: { allow: ['LC_ALL'], set: {} },
    };
    expect(isNarrowerOrEqual(child, parent)).toBe(true);
  });
});
