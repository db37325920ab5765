/** One step of building the sandbox's file system view, applied in order by bubblewrap. */
export type MountStep =
  | { op: 'ro-bind'; src: string; dest: string }
  /** Writable, so mounted from a descriptor: see `PIN_PREFIX`. */
  | { op: 'bind'; src: string; dest: string }
  | { op: 'tmpfs'; dest: string }
  | { op: 'dev'; dest: string }
  | { op: 'proc'; dest: string };

/**
 * Marks an argument that `skate-confine --pin-fds` replaces with a descriptor opened on the path
 * after checking it is not (and does not pass through) a symlink. A writable bind by path would be
 * resolved by bubblewrap later, and a sandbox already running (a parent agent's) could swap the
 * directory for a symlink in between, making its target writable in the new sandbox.
 */
export const PIN_PREFIX = '@pin:';

/** Turns mount steps into bubblewrap arguments; they must run under `skate-confine --pin-fds`. */
export function mountArgs(steps: readonly MountStep[]): string[] {
  const args: string[] = [];
  for (const step of steps) {
    switch (step.op) {
      case 'ro-bind':
        args.push('--ro-bind', step.src, step.dest);
        break;
      case 'bind':
        args.push('--bind-fd', `${PIN_PREFIX}${step.src}`, step.dest);
        break;
      case 'tmpfs':
        args.push('--tmpfs', step.dest);
        break;
      case 'dev':
        args.push('--dev', step.dest);
        break;
      case 'proc':
        args.push('--proc', step.dest);
        break;
    }
  }
  return args;
}

/** Names the create guard (skate-confine --guard, `executor/native/create-guard.h`) refuses to let a sandbox create. */
export interface GuardRules {
  /**
   * A protected path that does not exist, as the directory nearest to it that does (pinned: a
   * `bind` step, so it is the very directory mounted, and cannot be renamed away) and the first
   * missing name in it.
   */
  deny: { dir: string; name: string }[];
  /** Names refused in every directory on a write root's file system (Skate's own `.skate`). */
  names: string[];
  /**
   * Runs of path components (`.skate`, `.claude/agents`, `.mcp.json`) under which nothing is
   * created, opened for writing or hard-linked elsewhere on a write root's file system, at any
   * depth: what the start-up scan did not reach (its limits) is not mounted read-only.
   */
  trees: string[];
}

/** The argument the outer skate-confine replaces with the descriptor the inner one sends on. */
export const GUARD_FD = '@guard-fd';

/** The outer skate-confine's options that start the create guard's supervisor. */
export function guardArgs(guard: GuardRules): string[] {
  return [
    '--guard',
    ...guard.deny.flatMap(({ dir, name }) => ['--guard-deny', dir, name]),
    ...guard.names.flatMap((name) => ['--guard-name', name]),
    ...guard.trees.flatMap((tree) => ['--guard-tree', tree]),
  ];
}

/**
 * The first process inside the sandbox, its pid 1 (bwrap runs `--as-pid-1`): skate-confine, which
 * installs the guard's filter before anything else runs and stays as the reaper. bubblewrap's own
 * init would be a process inside the sandbox outside the filter, for a command to ptrace and make
 * calls through where Landlock does not stop it.
 */
export function sandboxInit(confine: string, guarded: boolean): string[] {
  return [confine, ...(guarded ? ['--guard-fd', GUARD_FD] : []), '--subreaper', '--'];
}
