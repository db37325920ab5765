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
