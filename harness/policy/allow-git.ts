const GIT_VARIANTS = new Map([
  ['execute', 'execute-git'],
  ['execute-git', 'execute-git'],
]);

/**
 * The built-in policy that adds git in the workspace (stage, commit, branch) to
 * one without it, for a flag such as `--allow-git`: `.git` becomes writable but
 * what git runs or follows on the host (hooks, config, info, commondir, submodule
 * and worktree directories) stays read-only. Undefined when there is none: the
 * caller says so rather than widen some other policy.
 */
export function allowGitPolicy(policy: string): string | undefined {
  return GIT_VARIANTS.get(policy);
}
