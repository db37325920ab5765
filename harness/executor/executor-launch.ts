import { existsSync } from 'node:fs';
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
}

/** Builds the launch for a policy; the kernel sandbox plugs in here. */
export type ExecutorLauncher = (policy: ResolvedPolicy) => ExecutorLaunch;

const SETPRIV = '/usr/bin/setpriv';

/**
 * Starts the executor as a plain child process, with no kernel confinement.
 * `setpriv --pdeathsig KILL` makes the kernel kill it if the harness dies, even
 * by SIGKILL, before the executor notices its channel closing.
 */
export const unconfinedLauncher: ExecutorLauncher = (policy) => {
  const entry = distPath('executor', 'bundle', 'executor.js');
  const node = [process.execPath, entry];
  const [command, ...args] = existsSync(SETPRIV) ? [SETPRIV, '--pdeathsig', 'KILL', '--', ...node] : node;
  return {
    command: command!,
    args,
    env: executorEnvironment(policy, process.env),
    cwd: policy.workspace,
    enforcement: 'none',
  };
};
