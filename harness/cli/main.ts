#!/usr/bin/env node
import type { CommandMain } from './cli-flags.js';
import { help, USAGE } from './usage.js';
import { UsageError } from './usage-error.js';

// Each command declares its flags next to what it does, and is imported only when run: loading
// every command's dependencies (the SDK, the engine, sessions) made even `skate --help` take 0.4 s.
const COMMANDS: Record<string, () => Promise<{ run: CommandMain }>> = {
  plan: () => import('./commands/plan-command.js'),
  execute: () => import('./commands/execute-command.js'),
  tools: () => import('./commands/tools-command.js'),
  tool: () => import('./commands/tool-command.js'),
  executor: () => import('./commands/executor-serve-command.js'),
  sessions: () => import('./commands/sessions-command.js'),
  policy: () => import('./commands/policy-show-command.js'),
  sandbox: () => import('./commands/sandbox-command.js'),
  acp: () => import('./commands/acp-command.js'),
};

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `skate` alone on a terminal opens the interactive UI; anywhere else it prints the usage.
  if (command === undefined && process.stdin.isTTY && process.stdout.isTTY) {
    return (await import('./commands/agent-command.js')).run([]);
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') return help();
  // `skate -p "task"` and friends: the agent command takes the whole argv.
  if (command.startsWith('-')) return (await import('./commands/agent-command.js')).run(argv);
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!load) throw new UsageError(`unknown command: ${command}`);
  return (await load()).run(rest);
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

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  if (await isUsageFailure(error)) {
    process.stderr.write(`skate: ${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (await isExpectedFailure(error)) {
    process.stderr.write(`skate: ${(error as Error).message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(
      `skate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}
