import { elide } from '../../shared/elide.js';
import { scrubOwnEnviron } from '../sandbox/scrub-own-environ.js';
import { traceStart } from '../start-trace.js';
import type { CommandMain } from './cli-flags.js';
import type { CommandName } from './command-names.js';
import { type EsmHost, setEsmHost } from './esm-host.js';
import { EXIT } from './exit-codes.js';
import { note } from './note.js';
import { statusAfter, watchOutput } from './output-closed.js';
import { help } from './usage.js';
import { UsageError } from './usage-error.js';

// Each command declares its flags next to what it does, and is imported only when run: loading
// every command's dependencies (the SDK, the engine, sessions) made even `skate --help` take 0.4 s.
const COMMANDS: Record<CommandName, () => Promise<{ run: CommandMain }>> = {
  plan: () => import('./commands/plan-command.js'),
  execute: () => import('./commands/execute-command.js'),
  tools: () => import('./commands/tools-command.js'),
  tool: () => import('./commands/tool-command.js'),
  executor: () => import('./commands/executor-serve-command.js'),
  sessions: () => import('./commands/sessions-command.js'),
  policy: () => import('./commands/policy-show-command.js'),
  sandbox: () => import('./commands/sandbox-command.js'),
  acp: () => import('./commands/acp-command.js'),
  serve: () => import('./commands/serve-command.js'),
  hooks: () => import('./commands/hooks-command.js'),
  replay: () => import('./commands/replay-command.js'),
  mcp: () => import('./commands/mcp-command.js'),
  agents: () => import('./commands/agents-command.js'),
};

const agent = async (argv: string[]): Promise<number> =>
  (await import('./commands/agent-command.js')).run(argv);

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `skate` alone on a terminal opens the interactive UI; anywhere else it prints the usage.
  if (command === undefined && process.stdin.isTTY && process.stdout.isTTY) return agent([]);
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') return help();
  if (command === '--version' || command === '-v') {
    const { skateVersion } = await import('../skate-version.js');
    process.stdout.write(`skate ${skateVersion()}\n`);
    return EXIT.ok;
  }
  // `skate -p "task"`, `skate -c -p "task"` and friends: the agent command takes the whole argv.
  if (command.startsWith('-')) return agent(argv);
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command as CommandName] : undefined;
  if (load) return (await load()).run(rest);
  // `skate "fix the bug" -p` (the task first), or `skate "fix the bug"` (meant for the interactive UI).
  if (command.includes(' ') || rest.some((arg) => arg === '-p' || arg === '--print')) return agent(argv);
  throw new UsageError(
    `unknown command: ${command} (commands: ${Object.keys(COMMANDS).join(', ')}; a task: skate -p "${command}")`,
  );
}

/** Failures with a message of their own (no stack trace needed): sandbox and executor errors. */
async function isExpectedFailure(error: unknown): Promise<boolean> {
  const { SandboxPlanError, SandboxUnavailableError } = await import('../sandbox/sandbox-errors.js');
  const { ExecutorChannelError, ExecutorRpcError } = await import('../executor-client/executor-errors.js');
  if (error instanceof ExecutorChannelError || error instanceof ExecutorRpcError) {
    error.message = `executor ${error.code}: ${error.message}`;
    return true;
  }
  return error instanceof SandboxUnavailableError || error instanceof SandboxPlanError;
}

/** The runtime's refusals that come from what the user asked (a bad workspace, policy, session, plan). */
async function isUsageFailure(error: unknown): Promise<boolean> {
  if (error instanceof UsageError) return true;
  const { AgentRuntimeError } = await import('../runtime/agent-runtime-error.js');
  return (
    error instanceof AgentRuntimeError &&
    ['workspace', 'policy', 'session', 'plan', 'settings'].includes(error.code)
  );
}

/**
 * Runs one command line and resolves to its exit code; failures become a line on stderr.
 * Called by the bin (dist/cli/skate.js), which loads this code as one cached CommonJS bundle
 * and hands in what only an ES module can load (`host`).
 */
export async function runCli(argv: string[], host?: EsmHost): Promise<number> {
  if (host) setEsmHost(host);
  // Before anything starts: without a sandbox, commands could read the keys in /proc/<pid>/environ.
  scrubOwnEnviron();
  watchOutput();
  traceStart(`cli: entry loaded${host ? ` (code cache: ${host.codeCache})` : ''}`);
  // Nobody read the output: the status says so, whatever the command made of it.
  return statusAfter(await runCommand(argv));
}

/** Longest failure printed: a message quoting a huge argument is elided (`elide`). */
const MAX_FAILURE_CHARS = 4000;

function fail(message: string): void {
  note(elide(message, MAX_FAILURE_CHARS));
}

async function runCommand(argv: string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (error) {
    // Through note (fail): a message may quote a workspace file or a tool's words, shown inert.
    if (await isUsageFailure(error)) {
      // One line: what was wrong and how to write it. `skate --help` has the whole usage.
      fail((error as Error).message);
      return EXIT.usage;
    }
    if (error instanceof (await import('../settings/settings-error.js')).SettingsError) {
      // A settings file that cannot be used: file, key and problem on one line; nothing ran.
      fail(`settings: ${error.message}`);
      return EXIT.usage;
    }
    const { SandboxUnavailableError } = await import('../sandbox/sandbox-errors.js');
    if (error instanceof SandboxUnavailableError) {
      // Fail closed: the policy asks for a kernel sandbox this machine cannot build, so nothing ran.
      fail(error.message);
      return EXIT.blocked;
    }
    if (await isExpectedFailure(error)) {
      fail((error as Error).message);
      return EXIT.error;
    }
    fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return EXIT.error;
  }
}
