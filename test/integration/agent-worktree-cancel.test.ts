import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentDiffStore } from '../../harness/agents/agent-diff-store.js';
import { hostDir } from '../support/host-dir.js';
import { testPolicy } from '../support/policies.js';
import { processDescendants } from '../support/process-descendants.js';
import { isAlive } from '../support/processes.js';
import { runWithSubagents, spawnCall } from '../support/spawn-harness.js';

describe('worktree children: cleanup', () => {
  it('a cancelled worktree child leaves no worktree, no diff and no process behind', async () => {
    await using ws = await hostDir('wt-cancel-');
    await using cache = await hostDir('wt-cancel-cache-');
    // Not a git work tree: the copy is a walk of the workspace.
    await writeFile(path.join(ws.path, 'a.txt'), 'a\n');
    const store = new AgentDiffStore(path.join(cache.path, 'worktrees'));
    const controller = new AbortController();
    const tracked: number[] = [];
    let asked = 0;
    let child: { workspace: string; writes: string[] } | undefined;
    let copied = false;
    const runPromise = runWithSubagents({
      parentPolicy: testPolicy(ws.path),
      parent: [{ steps: [spawnCall('c-1', { task: 'one', isolation: 'worktree' })] }],
      children: { one: [{ steps: [{ type: 'pause' }] }] },
      wrapChild: (provider) => ({
        name: provider.name,
        contextWindow: (model) => provider.contextWindow(model),
        stream(request, signal) {
          asked++;
          return provider.stream(request, signal);
        },
      }),
      spawn: {
        worktrees: store,
        onChildSpawned: (info) => {
          if (info.pid !== undefined) tracked.push(info.pid);
          child = { workspace: info.policy.workspace, writes: info.policy.write.allow };
          copied = existsSync(path.join(info.policy.workspace, 'a.txt'));
        },
      },
      signal: controller.signal,
    });
    while (asked < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await readdir(store.root)).toHaveLength(1);
    // Its workspace is the copy, outside the parent's, its only write root, holding the parent's file.
    expect(child?.workspace.startsWith(`${store.root}/`)).toBe(true);
    expect(child?.writes).toEqual([child?.workspace]);
    expect(copied).toBe(true);
    for (const pid of [...tracked]) tracked.push(...(await processDescendants(pid)));
    controller.abort();
    const run = await runPromise;
    expect(run.outcome.status).toBe('cancelled');
    expect(await readdir(store.root)).toEqual([]);
    expect(store.ids()).toEqual([]);
    for (const pid of tracked) expect(await isAlive(pid), `pid ${pid}`).toBe(false);
    await store.close();
    expect(existsSync(store.root)).toBe(false);
  });
});
