import type { ResourceLimits } from '../../shared/executor-boot.js';
import type { EnforcementLevel, ResolvedPolicy } from '../../shared/policy.js';
import { distPath } from '../project-paths.js';
import { executorEnvironment } from './executor-env.js';

/** How to start one executor process: the command line, environment and what confines it. */
export interface ExecutorLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  enforcement: EnforcementLevel;
  resourceLimits: ResourceLimits;
  /** Argv prefix for every command the executor starts; see `ExecutorBoot.commandWrapper`. */
  commandWrapper: string[];
  /** Undoes what preparing the launch left on the host, once the executor has exited. */
  cleanup?(): Promise<void>;
}

/** Builds the launch for a policy; the kernel sandbox plugs in here. */
export type ExecutorLauncher = (policy: ResolvedPolicy) => Promise<ExecutorLaunch>;

/**
 * Wraps each command in skate-confine: Landlock isolation from the executor, a subreaper, and
 * output through pipes (Node's are sockets, which `> /dev/stderr` cannot open).
 */
export function confineWrapper(): string[] {
  return [
    distPath('bin', 'skate-confine'),
    '--landlock',
    '--subreaper',
    '--pipe-output',
    '--oom-score-adj',
    '500',
    '--',
  ];
}

/**
 * Starts the executor as a plain child process, with no kernel confinement.
 * `skate-confine --pdeathsig` makes the kernel kill it if the harness dies, even
 * by SIGKILL, before the executor notices its channel closing.
 */
export function unconfinedLauncher(enforcement: 'none' | 'best-effort' = 'none'): ExecutorLauncher {
  return async (policy) => plainLaunch(policy, enforcement);
}

function plainLaunch(policy: ResolvedPolicy, enforcement: EnforcementLevel): ExecutorLaunch {
  return {
    command: distPath('bin', 'skate-confine'),
    args: ['--pdeathsig', '--', process.execPath, distPath('executor', 'bundle', 'executor.js')],
    env: executorEnvironment(policy, process.env),
    cwd: policy.workspace,
    enforcement,
    resourceLimits: 'none',
    commandWrapper: confineWrapper(),
  };
}
