#!/usr/bin/env node
import { parseArgs } from 'node:util';
import {
  AGENT_OPTIONS,
  agentFlags,
  COMMON,
  common,
  parseAgentArgs,
  parsed,
  sandboxMode,
} from './cli-flags.js';
import { EXIT } from './exit-codes.js';
import { UsageError } from './usage-error.js';

// Commands are imported when run: loading every command's dependencies (the SDK, the engine,
// sessions) made even `skate --help` take 0.4 s.

const USAGE = `usage:
  skate -p "task" [--output-format text|json|stream-json] [--model M] [--max-turns N] [--max-tokens N]
        [--thinking-budget N] [--approval auto|ask|deny-writes] [--system-prompt S] [--append-system-prompt S]
        [--policy P] [--network on|off] [--add-dir DIR]... [--workspace DIR] [--executor ws://HOST:PORT]
        [--answers FILE] [--no-subagents] [--continue | --resume ID [--fork-at EVENT_ID]] [--no-session]
        (the task may also come on stdin)
  skate plan "task" [agent options]      plan under the plan policy: read-only but .skate/plan.md
  skate plan --edit [--workspace DIR]    open the plan in $EDITOR
  skate execute [--plan FILE] ["extra instructions"] [agent options]   carry out the plan in a fresh agent
  skate tools [--policy P] [--workspace DIR] [--executor ws://HOST:PORT] [--json]
  skate tool NAME --input JSON|- [--policy P] [--workspace DIR] [--executor ws://HOST:PORT] [--stream]
  skate executor serve --listen HOST:PORT [--policy P] [--workspace DIR] [--token-file FILE]
  skate sessions list [--workspace DIR] [--json]
  skate sessions show ID [--workspace DIR] [--json]
  skate policy show [P] [--workspace DIR] [--json]
  skate sandbox [--policy P] [--workspace DIR] [--sandbox best-effort] -- CMD [ARGS...]
  skate --version

options:
  -p, --print       run headless: the task is the argument (skate -p "task", skate -c -p "task") or stdin
  --policy P        a built-in policy (execute, readonly, plan, full), one in ~/.skate/policies, or a file; default execute
  --network on|off  turn the policy's network on or off for this run only
  --add-dir DIR     another writable root for this run, protected like the workspace (repeatable)
  --max-tokens N    output tokens per model reply (default 16000); --thinking-budget N turns on extended thinking
  --workspace DIR   the directory the agent works in; default the current directory
  --executor URL    use a remote executor (token in SKATE_EXECUTOR_TOKEN) instead of starting one
  --sandbox MODE    required (default): refuse to run a restricted policy without the kernel sandbox;
                    best-effort: run anyway, with only the tools' own checks
  --verbose         show the executor's own log and sandbox notes on stderr
  --answers FILE    ask_user answers for a headless run: a JSON array of answer arrays, used in order
  --no-subagents    do not offer spawn_agent (sub-agents on their own narrowed executors)
  --continue, -c    continue the workspace's latest session; --resume ID continues that one;
                    --fork-at EVENT_ID branches from an earlier event into a new session
  --no-session      record nothing in .skate/sessions
  settings: ~/.skate/settings.json, then <workspace>/.skate/settings.json; flags win (README, "Settings")
`;

/** `skate -p "task"`, `skate -c -p "task"`, `echo task | skate -p`: one headless agent run. */
async function agent(args: string[]): Promise<number> {
  const { values, positionals } = parseAgentArgs(args);
  if (values.help) return help();
  const prompt = positionals.length > 0 ? positionals.join(' ') : undefined;
  // Without -p a task on the command line (or none, on a terminal) means the interactive UI.
  if (!values.print && (prompt !== undefined || process.stdin.isTTY)) {
    const example = `skate ${values.continue ? '-c ' : ''}-p "${prompt ?? 'task'}"`;
    throw new UsageError(
      `the interactive terminal UI is not in this build yet; run headless with ${example}`,
    );
  }
  const { agentCommand } = await import('./commands/agent-command.js');
  return agentCommand({ ...(await agentFlags(values)), prompt });
}

/** `skate plan "task"` / `skate plan --edit`: planning under the plan policy. */
async function plan(args: string[]): Promise<number> {
  const { values, positionals } = parsed(() =>
    parseArgs({
      args,
      options: { ...AGENT_OPTIONS, edit: { type: 'boolean', default: false } },
      allowPositionals: true,
    }),
  );
  if (values.help) return help();
  if (args.some((arg) => arg === '--policy' || arg.startsWith('--policy='))) {
    throw new UsageError('skate plan always runs under the plan policy; drop --policy');
  }
  if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]} (quote the task)`);
  const flags = await agentFlags(values);
  const { planCommand } = await import('./commands/plan-command.js');
  return planCommand({ ...flags, prompt: positionals[0], edit: values.edit });
}

/** `skate execute [--plan FILE] ["extra instructions"]`: a fresh agent carrying out the plan. */
async function execute(args: string[]): Promise<number> {
  const { values, positionals } = parsed(() =>
    parseArgs({ args, options: { ...AGENT_OPTIONS, plan: { type: 'string' } }, allowPositionals: true }),
  );
  if (values.help) return help();
  if (positionals.length > 1) {
    throw new UsageError(`unexpected argument: ${positionals[1]} (quote the instructions)`);
  }
  const flags = await agentFlags(values);
  const { executeCommand } = await import('./commands/execute-command.js');
  return executeCommand({ ...flags, prompt: positionals[0], planFile: values.plan });
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const own = ['-h', '--help', '-v', '--version'];
  if (command?.startsWith('-') && !own.includes(command)) return agent(argv);
  switch (command) {
    case 'plan':
      return plan(rest);
    case 'execute':
      return execute(rest);
    case 'tools': {
      const { values, positionals } = parsed(() =>
        parseArgs({
          args: rest,
          options: { ...COMMON, json: { type: 'boolean', default: false } },
          allowPositionals: true,
        }),
      );
      if (values.help) return help();
      if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      const { toolsCommand } = await import('./commands/tools-command.js');
      return toolsCommand({ ...common(values), json: values.json });
    }
    case 'tool': {
      const { values, positionals } = parsed(() =>
        parseArgs({
          args: rest,
          options: { ...COMMON, input: { type: 'string' }, stream: { type: 'boolean', default: false } },
          allowPositionals: true,
        }),
      );
      if (values.help) return help();
      const [name, ...extra] = positionals;
      if (!name) throw new UsageError('skate tool needs a tool name (see `skate tools`)');
      if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
      if (values.input === undefined)
        throw new UsageError('skate tool needs --input JSON (or --input - for stdin)');
      const { toolCommand } = await import('./commands/tool-command.js');
      return toolCommand({ ...common(values), name, input: values.input, stream: values.stream });
    }
    case 'executor': {
      const [sub, ...subRest] = rest;
      if (sub !== 'serve')
        throw new UsageError('the executor command is `skate executor serve --listen HOST:PORT`');
      const { values } = parsed(() =>
        parseArgs({
          args: subRest,
          options: { ...COMMON, listen: { type: 'string' }, 'token-file': { type: 'string' } },
        }),
      );
      if (values.help) return help();
      if (!values.listen) throw new UsageError('skate executor serve needs --listen HOST:PORT');
      const { executorServeCommand } = await import('./commands/executor-serve-command.js');
      return executorServeCommand({
        listen: values.listen,
        policy: values.policy,
        workspace: values.workspace,
        tokenFile: values['token-file'],
        sandbox: sandboxMode(values.sandbox),
      });
    }
    case 'sessions': {
      const [sub, ...subRest] = rest;
      const { values, positionals } = parseWorkspaceJson(subRest);
      if (values.help) return help();
      const { resolveWorkspace } = await import('./open-executor.js');
      const { sessionsListCommand, sessionsShowCommand } = await import('./commands/sessions-command.js');
      const workspace = await resolveWorkspace(values.workspace);
      if (sub === 'list') {
        if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
        return sessionsListCommand({ workspace, json: values.json });
      }
      if (sub === 'show') {
        const [id, ...extra] = positionals;
        if (!id) throw new UsageError('skate sessions show needs a session id (see `skate sessions list`)');
        if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
        return sessionsShowCommand({ workspace, id, json: values.json });
      }
      throw new UsageError('the sessions commands are `skate sessions list` and `skate sessions show ID`');
    }
    case 'policy': {
      const [sub, ...subRest] = rest;
      if (sub !== 'show') throw new UsageError('the policy command is `skate policy show [P]`');
      const { values, positionals } = parseWorkspaceJson(subRest);
      if (values.help) return help();
      if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`);
      const { policyShowCommand } = await import('./commands/policy-show-command.js');
      return policyShowCommand({
        policy: positionals[0] ?? COMMON.policy.default,
        workspace: values.workspace,
        json: values.json,
      });
    }
    case 'sandbox': {
      // Everything after `--` is the command, untouched: its own flags are not ours.
      const split = rest.indexOf('--');
      const ours = split === -1 ? rest : rest.slice(0, split);
      const { values, positionals } = parsed(() =>
        parseArgs({
          args: ours,
          options: {
            policy: COMMON.policy,
            workspace: COMMON.workspace,
            sandbox: COMMON.sandbox,
            verbose: COMMON.verbose,
            help: COMMON.help,
          },
          allowPositionals: true,
        }),
      );
      if (values.help) return help();
      if (positionals.length > 0) {
        throw new UsageError(`unexpected argument: ${positionals[0]} (put the command after --)`);
      }
      const [program, ...args] = split === -1 ? [] : rest.slice(split + 1);
      if (program === undefined)
        throw new UsageError('skate sandbox needs a command: skate sandbox -- CMD [ARGS...]');
      const { sandboxCommand } = await import('./commands/sandbox-command.js');
      return sandboxCommand({
        policy: values.policy,
        workspace: values.workspace,
        sandbox: sandboxMode(values.sandbox),
        verbose: values.verbose,
        command: [program, ...args],
      });
    }
    case '--version':
    case '-v': {
      const { skateVersion } = await import('../skate-version.js');
      process.stdout.write(`skate ${skateVersion()}\n`);
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return help();
    default:
      // `skate "fix the bug" -p` (a task first), or `skate "fix the bug"` (the interactive UI).
      if (command.includes(' ') || rest.some((arg) => arg === '-p' || arg === '--print')) return agent(argv);
      throw new UsageError(
        `unknown command: ${command} (commands: plan, execute, tools, tool, sessions, policy, sandbox, executor; a task: skate -p "${command}")`,
      );
  }
}

/** `--workspace DIR [--json]` and positionals: what `sessions` and `policy show` take. */
function parseWorkspaceJson(args: string[]) {
  return parsed(() =>
    parseArgs({
      args,
      options: { workspace: COMMON.workspace, json: { type: 'boolean', default: false }, help: COMMON.help },
      allowPositionals: true,
    }),
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

function help(): number {
  process.stdout.write(USAGE);
  return 0;
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    // One line: what was wrong and how to write it. `skate --help` has the whole usage.
    process.stderr.write(`skate: ${error.message}\n`);
    process.exitCode = EXIT.usage;
  } else if (error instanceof (await import('../settings/settings-error.js')).SettingsError) {
    // A settings file that cannot be used: file, key and problem on one line; nothing ran.
    process.stderr.write(`skate: settings: ${error.message}\n`);
    process.exitCode = EXIT.usage;
  } else if (await isExpectedFailure(error)) {
    process.stderr.write(`skate: ${(error as Error).message}\n`);
    process.exitCode = EXIT.error;
  } else {
    process.stderr.write(
      `skate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = EXIT.error;
  }
}
