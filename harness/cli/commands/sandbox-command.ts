import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import { resolvePolicy, resolveWorkspace } from '../../runtime/start-executor.js';
import type { SandboxMode } from '../../sandbox/choose-launcher.js';
import { type CommandLaunch, launchCommand } from '../../sandbox/launch-command.js';
import { COMMON, type CommandMain, parsed, sandboxMode } from '../cli-flags.js';
import { note } from '../note.js';
import { createSandboxNotes } from '../sandbox-notes.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

const OPTIONS = {
  policy: COMMON.policy,
  workspace: COMMON.workspace,
  sandbox: COMMON.sandbox,
  verbose: COMMON.verbose,
  help: COMMON.help,
} as const;

/** `skate sandbox [--policy P] [--workspace DIR] [--sandbox best-effort] -- CMD [ARGS...]`. */
export const run: CommandMain = async (args) => {
  // Everything after `--` is the command, untouched: its own flags are not ours.
  const split = args.indexOf('--');
  const ours = split === -1 ? args : args.slice(0, split);
  const { values, positionals } = parsed(() =>
    parseArgs({ args: ours, options: OPTIONS, allowPositionals: true }),
  );
  if (values.help) return help();
  if (positionals.length > 0) {
    throw new UsageError(`unexpected argument: ${positionals[0]} (put the command after --)`);
  }
  const [program, ...rest] = split === -1 ? [] : args.slice(split + 1);
  if (program === undefined)
    throw new UsageError('skate sandbox needs a command: skate sandbox -- CMD [ARGS...]');
  return sandboxCommand({
    policy: values.policy,
    workspace: values.workspace,
    sandbox: sandboxMode(values.sandbox),
    verbose: values.verbose,
    command: [program, ...rest],
  });
};

export interface SandboxCommandOptions {
  policy: string;
  workspace: string;
  sandbox: SandboxMode;
  verbose: boolean;
  /** The program and its arguments, as given after `--`. */
  command: [string, ...string[]];
}

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * `skate sandbox -- CMD`: runs one command exactly as the shell tool would under
 * a policy (the executor's bubblewrap sandbox and cgroups, then skate-confine with
 * Landlock and a subreaper), but with stdin, stdout and stderr passed through, so
 * interactive programs and pipes work. Returns the command's exit code, or
 * 128+signal when it was killed.
 */
export async function sandboxCommand(options: SandboxCommandOptions): Promise<number> {
  const workspace = await resolveWorkspace(options.workspace);
  const policy = await resolvePolicy(options.policy, workspace);
  // A terminal's ^C reaches the sandbox through our process group; a signal sent to us alone is
  // passed on. Installed before the sandbox is prepared, so a stop then still cleans up.
  let child: ChildProcess | undefined;
  let stopped: NodeJS.Signals | undefined;
  const forward = (signal: NodeJS.Signals) => {
    stopped ??= signal;
    child?.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  let launch: CommandLaunch | undefined;
  try {
    launch = await launchCommand(policy, options.sandbox, options.command, {
      note,
      ...createSandboxNotes({ verbose: options.verbose ?? false, write: note }),
    });
    if (stopped) return 128 + constants.signals[stopped];
    const [program, ...args] = launch.argv;
    const started = spawn(program, args, { cwd: workspace, env: launch.env, stdio: 'inherit' });
    child = started;
    return await new Promise<number>((resolve, reject) => {
      started.once('error', reject);
      started.once('close', (code, signal) =>
        resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)),
      );
    });
  } finally {
    for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
    await launch?.release();
  }
}
