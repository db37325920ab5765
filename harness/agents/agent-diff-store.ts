import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { skateCacheDir } from '../skate-cache-dir.js';
import type { AgentDiff } from './agent-worktree.js';

/** A worktree child's changes, kept until the parent applies them or its session ends. */
export interface PendingDiff {
  id: string;
  diff: AgentDiff;
}

/**
 * One agent's worktree children: where their worktrees go (a directory of this session under the
 * user's Skate cache, outside every workspace) and the diffs they brought back, by id. `close`
 * (the agent's session ends) removes whatever a crash or a cancel left there.
 */
export class AgentDiffStore {
  private readonly pending = new Map<string, PendingDiff>();
  private seq = 0;
  readonly root: string;

  constructor(root = path.join(skateCacheDir(), 'worktrees', `${process.pid}-${randomUUID().slice(0, 8)}`)) {
    this.root = root;
  }

  /** A fresh directory name for one child's worktree. */
  worktreeDir(agentId: string): string {
    return path.join(this.root, `${agentId}-${++this.seq}`);
  }

  /** Keeps a diff under the child's id, or a suffixed one when an earlier run's child had it. */
  put(agentId: string, diff: AgentDiff): string {
    let id = agentId;
    for (let n = 2; this.pending.has(id); n++) id = `${agentId}.${n}`;
    this.pending.set(id, { id, diff });
    return id;
  }

  get(id: string): PendingDiff | undefined {
    return this.pending.get(id);
  }

  delete(id: string): void {
    this.pending.delete(id);
  }

  ids(): string[] {
    return [...this.pending.keys()];
  }

  async close(): Promise<void> {
    this.pending.clear();
    await rm(this.root, { recursive: true, force: true });
  }
}
