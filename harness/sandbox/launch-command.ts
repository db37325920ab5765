import type { ResolvedPolicy } from '../../shared/policy.js';
import { distPath } from '../project-paths.js';
import { isUnrestricted, type SandboxMode } from './choose-launcher.js';
import { executorEnvironment } from './executor-env.js';
import { confineWrapper } from './executor-launch.js';
import { prepareSandbox } from './prepare-sandbox.js';
import { probeSandbox } from './probe-sandbox.js';
import { SandboxUnavailableError } from './sandbox-errors.js';

/** A command ready to start: spawn `argv` with `env`, then `release` once it has exited. */
export interface CommandLaunch {
  argv: [string, ...string[]];
  env: Record<string, string>;
  release(): Promise<void>;
}

/**
 * The same choice `launcherFor` makes for executors, for one command (`skate sandbox`, hook
 * commands): the policy's bubblewrap sandbox and cgroups, then skate-confine; unconfined only for
 * an unrestricted policy, or with `best-effort` where the kernel layer is missing (said in a note).
 */
export async function launchCommand(
  policy: ResolvedPolicy,
  mode: SandboxMode,
  command: [string, ...string[]],
  notes: { note(line: string): void; onNote?(line: string): void; onWarning?(line: string): void },
): Promise<CommandLaunch> {
  const inner = [...confineWrapper(), ...command];
  const unconfined = (): CommandLaunch => ({
    argv: [distPath('bin', 'skate-confine'), '--pdeathsig', '--', ...inner],
    env: executorEnvironment(policy, process.env),
    release: async () => undefined,
  });
  if (isUnrestricted(policy)) return unconfined();
  const support = await probeSandbox();
  if (!support.available) {
    if (mode !== 'best-effort') throw new SandboxUnavailableError(policy.name, support.problem, support.fix);
    notes.note(`no kernel sandbox (${support.problem}); the command runs unconfined`);
    return unconfined();
  }
  const sandbox = await prepareSandbox(policy, {
    ...(notes.onNote && { onNote: notes.onNote }),
    ...(notes.onWarning && { onWarning: notes.onWarning }),
  });
  return { argv: [...sandbox.argv, ...inner], env: sandbox.env, release: () => sandbox.release() };
}
