import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PathGuard } from '../../../executor/path-guard.js';
import { allowGitPolicy } from '../../../harness/policy/allow-git.js';
import { loadPolicy } from '../../../harness/policy/load-policy.js';
import { isNarrowerOrEqual, narrowPolicy, type PolicyRequest } from '../../../shared/narrow-policy.js';
import type { ResolvedPolicy } from '../../../shared/policy.js';

const WS = '/ws-does-not-exist';

async function load(name: string): Promise<ResolvedPolicy> {
  const loaded = await loadPolicy(name, { workspace: WS, home: '/home/u' });
  if (!loaded.ok) throw new Error(loaded.problem.message);
  return loaded.policy;
}

describe('the execute-git policy', () => {
  it('is what --allow-git maps execute to, and nothing else widens', () => {
    expect(allowGitPolicy('execute')).toBe('execute-git');
    expect(allowGitPolicy('execute-git')).toBe('execute-git');
    for (const name of ['readonly', 'plan', 'full', 'constructor', 'toString']) {
      expect(allowGitPolicy(name), name).toBeUndefined();
    }
  });

  it('is execute with only git’s own data made writable: execute is narrower, not the reverse', async () => {
    const execute = await load('execute');
    const git = await load('execute-git');
    expect(isNarrowerOrEqual(execute, git)).toBe(true);
    expect(isNarrowerOrEqual(git, execute)).toBe(false);
    expect(git.read).toEqual(execute.read);
    expect(git.write).toEqual(execute.write);
    expect(git.network).toEqual(execute.network);
    expect(git.protected.filter((p) => !p.startsWith(`${WS}/.git`))).toEqual(
      execute.protected.filter((p) => p !== `${WS}/.git`),
    );
  });

  it('gives sub-agents nothing wider, whatever they ask', async () => {
    const git = await load('execute-git');
    const requests: PolicyRequest[] = [
      {},
      { readOnly: true },
      { writePaths: [`${WS}/.git`, `${WS}/.git/hooks`, '/'] },
      { writePaths: [`${WS}/src`], denyPaths: [`${WS}/.git`] },
      { network: 'off' },
    ];
    for (const request of requests) {
      const child = narrowPolicy(git, request);
      expect(isNarrowerOrEqual(child, git), JSON.stringify(request)).toBe(true);
      expect(child.protected).toEqual(expect.arrayContaining(git.protected));
    }
  });

  it('lets the tools write git’s index and objects but not its hooks, config or info', async () => {
    const guard = new PathGuard(await load('execute-git'));
    for (const file of ['.git/index', '.git/objects/ab/cdef', '.git/refs/heads/main', '.git/HEAD']) {
      await expect(guard.forWrite(file), file).resolves.toBe(path.join(WS, file));
    }
    for (const file of ['.git/hooks/pre-commit', '.git/config', '.git/info/attributes', '.git/commondir']) {
      await expect(guard.forWrite(file), file).rejects.toMatchObject({ code: 'denied' });
    }
  });
});
