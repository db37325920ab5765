import type { ResolvedPolicy } from '../../shared/policy.js';

function under(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/**
 * The policy of a child isolated in a worktree: its already narrowed policy (`childPolicyFor`)
 * moved onto the worktree. Its workspace is the worktree; its write roots are the narrowed
 * ones that lay in the parent's workspace, at the same place in the worktree, and nothing else
 * (the parent's workspace is read-only to it); what the parent protects or hides in its workspace
 * is protected or hidden in the worktree too. Network, environment and limits stay as narrowed.
 * It is not a narrowing of the parent on the write axis, by design: the worktree is a scratch
 * copy, and what it writes reaches the workspace only through `apply_agent_diff`, written by the
 * parent's own executor under the parent's policy.
 */
export function isolatedPolicy(narrowed: ResolvedPolicy, tree: string): ResolvedPolicy {
  const workspace = narrowed.workspace;
  const moved = (p: string): string => (p === workspace ? tree : `${tree}${p.slice(workspace.length)}`);
  const inWorkspace = (p: string): boolean => under(workspace, p);
  return {
    ...narrowed,
    workspace: tree,
    read: {
      allow: narrowed.read.allow,
      deny: [...narrowed.read.deny, ...narrowed.read.deny.filter(inWorkspace).map(moved)],
    },
    write: { allow: narrowed.write.allow.filter(inWorkspace).map(moved) },
    protected: [...narrowed.protected.filter(inWorkspace).map(moved), ...narrowed.protected],
  };
}
