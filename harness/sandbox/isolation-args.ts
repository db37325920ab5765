import type { ResolvedPolicy } from '../../shared/policy.js';

/**
 * The namespaces and privileges of every sandbox. As root, bubblewrap keeps all
 * capabilities unless told otherwise and a nested user namespace could undo
 * read-only mounts, so both are taken away explicitly.
 */
export function isolationArgs(policy: ResolvedPolicy): string[] {
  return [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    // Off and allowlist alike: no route anywhere; an allowlist's one way out is the proxy's socket.
    ...(policy.network.mode !== 'on' ? ['--unshare-net'] : []),
    '--disable-userns',
    '--cap-drop',
    'ALL',
    // No controlling terminal: TIOCSTI cannot push keystrokes into the user's shell.
    '--new-session',
    '--die-with-parent',
    // No init of bubblewrap's inside: the first process is skate-confine (see sandboxInit).
    '--as-pid-1',
    '--hostname',
    'skate-sandbox',
  ];
}
