import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentChange } from '../../../harness/agents/agent-worktree.js';
import { refusal } from '../../../harness/agents/apply-agent-diff-tool.js';
import { childPolicyFor } from '../../../harness/agents/child-policy.js';
import { mergeThreeWay } from '../../../harness/agents/merge-three-way.js';
import { isolatedPolicy } from '../../../harness/agents/worktree-policy.js';
import { resolvePolicy } from '../../../harness/runtime/start-executor.js';
import { isNarrowerOrEqual, narrowPolicy } from '../../../shared/narrow-policy.js';
import { isWithin } from '../../../shared/path-within.js';
import type { ResolvedPolicy } from '../../../shared/policy.js';

const WS = '/home/u/project';
const TREE = '/home/u/.cache/skate/worktrees/1-ab/agent-1-1/tree';

function change(path: string, extra: Partial<AgentChange> = {}): AgentChange {
  return {
    path,
    status: 'modified',
    oldMode: '100644',
    newMode: '100644',
    before: Buffer.from('a\n'),
    after: Buffer.from('b\n'),
    ...extra,
  };
}

describe('isolatedPolicy', () => {
  it('moves the narrowed write roots, protected paths and hidden files onto the worktree, and nothing else is writable', async () => {
    const parent = await resolvePolicy('execute', WS);
    const narrowed = childPolicyFor(parent, { write_paths: ['src'] }, { name: 'agent-1' });
    if (!narrowed.ok) throw new Error(narrowed.message);
    const policy = isolatedPolicy(narrowed.policy, TREE);
    expect(policy.workspace).toBe(TREE);
    expect(policy.write.allow).toEqual([`${TREE}/src`]);
    // The parent's workspace is not writable to it anywhere.
    expect(policy.write.allow.some((root) => isWithin(WS, root) || isWithin(root, WS))).toBe(false);
    expect(policy.protected).toEqual(
      expect.arrayContaining([`${TREE}/.git`, `${TREE}/.skate`, `${TREE}/.claude`]),
    );
    expect(policy.read.deny).toEqual(expect.arrayContaining([`${TREE}/**/.env`, `${WS}/**/.env`]));
    expect(policy.network).toEqual(narrowed.policy.network);
    expect(policy.environment).toEqual(narrowed.policy.environment);
    expect(policy.limits).toEqual(narrowed.policy.limits);
  });

  it('a read-only narrowing stays read-only in the worktree', async () => {
    const parent = await resolvePolicy('execute', WS);
    const narrowed = childPolicyFor(parent, { read_only: true }, { name: 'agent-1' });
    if (!narrowed.ok) throw new Error(narrowed.message);
    expect(isolatedPolicy(narrowed.policy, TREE).write.allow).toEqual([]);
  });
});

describe('isolatedPolicy (properties)', () => {
  const paths = fc.constantFrom('/ws', '/ws/src', '/ws/src/a', '/ws/.git', '/ws/.skate', '/ws2', '/tmp', '/');
  const parentArb: fc.Arbitrary<ResolvedPolicy> = fc.record({
    name: fc.constant('parent'),
    workspace: fc.constant('/ws'),
    read: fc.record({
      allow: fc.constant(['/']),
      deny: fc.array(fc.constantFrom('/ws/**/.env', '/ws2', '/ws/.env')),
    }),
    write: fc.record({ allow: fc.array(paths, { maxLength: 3 }) }),
    protected: fc.array(fc.constantFrom('/ws/.git', '/ws/.skate', '/ws/src/a', '/ws2/x'), { maxLength: 3 }),
    network: fc.constantFrom({ mode: 'off' as const }, { mode: 'on' as const }),
    environment: fc.record({ allow: fc.subarray(['PATH', 'HOME']), set: fc.constant({}) }),
    limits: fc.constant({ commandTimeoutSeconds: 10, outputBytes: 100, memoryMiB: 100, processes: 10 }),
  });
  const writePaths = fc.option(fc.array(paths, { maxLength: 3 }), { nil: undefined });
  const tree = '/cache/wt/agent-1-1/tree';
  const back = (p: string): string =>
    p === tree ? '/ws' : p.startsWith(`${tree}/`) ? `/ws${p.slice(tree.length)}` : p;

  it('is the narrowed child moved onto the worktree: writes only there, nothing wider on any other axis', () => {
    fc.assert(
      fc.property(parentArb, writePaths, fc.boolean(), (parent, wanted, readOnly) => {
        const narrowed = narrowPolicy(parent, {
          ...(wanted && { writePaths: wanted }),
          ...(readOnly && { readOnly: true }),
        });
        const isolated = isolatedPolicy(narrowed, tree);
        // Every write root is in the worktree, none in the parent's workspace or anywhere else.
        for (const root of isolated.write.allow) expect(isWithin(tree, root)).toBe(true);
        // Moved back, the write roots are the narrowed ones that lay in the workspace.
        expect(isolated.write.allow.map(back)).toEqual(
          narrowed.write.allow.filter((r) => isWithin('/ws', r)),
        );
        // What is protected or hidden in the workspace is protected or hidden in the worktree too.
        for (const p of narrowed.protected.filter((q) => isWithin('/ws', q)))
          expect(isolated.protected).toContain(p === '/ws' ? tree : `${tree}${p.slice(3)}`);
        for (const d of narrowed.read.deny) expect(isolated.read.deny).toContain(d);
        // Moved back onto the workspace, it is a narrowing of the parent on every axis.
        const movedBack: ResolvedPolicy = {
          ...isolated,
          workspace: '/ws',
          write: { allow: isolated.write.allow.map(back) },
          protected: narrowed.protected,
          read: narrowed.read,
        };
        expect(isNarrowerOrEqual(movedBack, parent)).toBe(true);
        expect(isolated.network).toEqual(narrowed.network);
        expect(isolated.environment).toEqual(narrowed.environment);
        expect(isolated.limits).toEqual(narrowed.limits);
      }),
      { numRuns: 300 },
    );
  });
});

describe('what apply_agent_diff refuses', () => {
  it('configuration Skate or git reads, protected paths, links, nested repositories, binaries, odd paths', async () => {
    const policy = await resolvePolicy('execute', WS);
    const refused = (c: AgentChange): string | undefined => refusal(c, policy);
    for (const p of [
      '.git/hooks/pre-commit',
      'vendor/lib/.git/config',
      '.skate/settings.json',
      'packages/a/.skate/agents/x.md',
      '.claude/agents/evil.md',
      '.mcp.json',
      'packages/a/.mcp.json',
    ])
      expect(refused(change(p, { status: 'added', before: undefined })), p).toBe(
        'Skate or git read it as configuration',
      );
    expect(refused(change('.vscode/settings.json'))).toBe('protected by the policy');
    expect(refused(change('sandbox-policies/execute.json'))).toBe('protected by the policy');
    expect(refused(change('../outside.txt'))).toBe('not a plain relative path');
    expect(refused(change('a//b'))).toBe('not a plain relative path');
    expect(refused(change('link', { newMode: '120000' }))).toBe('a symbolic link');
    expect(refused(change('vendor/sub', { newMode: '160000', after: undefined }))).toBe('not a regular file');
    expect(refused(change('img.png', { after: Buffer.from([0x89, 0x50, 0, 1]) }))).toBe('a binary file');
    expect(refused(change('big.txt', { after: undefined }))).toBe('too large to apply');
    expect(refused(change('src/a.ts'))).toBeUndefined();
    expect(
      refused(change('src/gone.ts', { status: 'deleted', after: undefined, newMode: '000000' })),
    ).toBeUndefined();
  });
});

describe('mergeThreeWay', () => {
  it('merges changes to different lines, and reports both sides of a conflict without markers to write', async () => {
    expect(await mergeThreeWay('A\nb\nc\n', 'a\nb\nc\n', 'a\nb\nC\n')).toEqual({
      clean: true,
      text: 'A\nb\nC\n',
    });
    expect(await mergeThreeWay('a\nB1\nc\n', 'a\nb\nc\n', 'a\nB2\nc\n')).toEqual({
      clean: false,
      hunks: [{ line: 2, workspace: 'B1', agent: 'B2' }],
    });
  });
});
