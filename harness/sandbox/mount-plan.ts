/** One step of building the sandbox's file system view, applied in order by bubblewrap. */
export type MountStep =
  | { op: 'ro-bind'; src: string; dest: string }
  | { op: 'bind'; src: string; dest: string }
  | { op: 'tmpfs'; dest: string }
  | { op: 'dev'; dest: string }
  | { op: 'proc'; dest: string };

/** Turns mount steps into bubblewrap arguments. */
export function mountArgs(steps: readonly MountStep[]): string[] {
  const args: string[] = [];
  for (const step of steps) {
    switch (step.op) {
      case 'ro-bind':
        args.push('--ro-bind', step.src, step.dest);
        break;
      case 'bind':
        args.push('--bind', step.src, step.dest);
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
