import { distPath } from '../project-paths.js';
import { confineWrapper, type ExecutorLauncher } from './executor-launch.js';
import { type PrepareSandboxOptions, prepareSandbox } from './prepare-sandbox.js';

export type KernelLauncherOptions = PrepareSandboxOptions;

/**
 * Starts executors inside bubblewrap built from their policy, in cgroups that
 * bound their memory and process count, with every command they run wrapped in
 * skate-confine. Refuses (fail closed) when bubblewrap cannot work here.
 */
export function kernelLauncher(options: KernelLauncherOptions = {}): ExecutorLauncher {
  return async (policy) => {
    const entry = distPath('executor', 'bundle', 'executor.js');
    const sandbox = await prepareSandbox(policy, options);
    const [command, ...args] = sandbox.argv;
    return {
      command,
      args: [...args, process.execPath, entry],
      env: sandbox.env,
      cwd: policy.workspace,
      enforcement: 'kernel',
      resourceLimits: sandbox.resourceLimits,
      commandWrapper: confineWrapper(),
      cleanup: () => sandbox.release(),
    };
  };
}
