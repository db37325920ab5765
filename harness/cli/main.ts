#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ExecutorChannelError, ExecutorRpcError } from '../executor/executor-errors.js';
import type { SandboxMode } from '../sandbox/choose-launcher.js';
import { SandboxUnavailableError } from '../sandbox/sandbox-errors.js';
import { agentCommand } from './commands/agent-command.js';
import { executorServeCommand } from './commands/executor-serve-command.js';
import { toolCommand } from './commands/tool-command.js';
import { toolsCommand } from './commands/tools-command.js';
import type { ExecutorOptions } from './open-executor.js';
import { UsageError } from './usage-error.js';

const USAGE = `usage:
  skate -p "task" [--output-format text|json|stream-json] [--model M] [--max-turns N]
        [--approval auto|ask|deny-writes] [--system-prompt S] [--append-system-prompt S]
        [--policy P] [--workspace DIR] [--executor ws://HOST:PORT]      (the task may also come on stdin)
  skate tools [--policy P] [--workspace DIR] [--executor ws://HOST:PORT] [--json]
  skate tool NAME --input JSON|- [--policy P] [--workspace DIR] [--executor ws://HOST:PORT] [--stream]
  skate executor serve --listen HOST:PORT [--policy P] [--workspace DIR] [--token-file FILE]

options:
  --policy P        a built-in policy (execute, readonly, plan, full), one in ~/.skate/policies, or a file; default execute
  --workspace DIR   the directory the agent works in; default the current directory
  --executor URL    use a remote executor (token in SKATE_EXECUTOR_TOKEN) instead of starting one
  --sandbox MODE    required (default): refuse to run a restricted policy without the kernel sandbox;
                    best-effort: run anyway, with only the tools' own checks
  --verbose         show the executor's own log and sandbox notes on stderr
`;

const COMMON = {
  policy: { type: 'string', default: 'execute' },
  workspace: { type: 'string', default: '.' },
  executor: { type: 'string' },
  verbose: { type: 'boolean', default: false },
  'diagnostic-tools': { type: 'boolean', default: false },
  sandbox: { type: 'string', default: 'required' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Runs a parseArgs call, turning its complaints into usage errors. */
function parsed<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const AGENT_OPTIONS = {
  ...COMMON,
  prompt: { type: 'string', short: 'p' },
  'output-format': { type: 'string', default: 'text' },
  model: { type: 'string' },
  'max-turns': { type: 'string', default: '50' },
  'max-tokens': { type: 'string', default: '16000' },
  'thinking-budget': { type: 'string' },
  approval: { type: 'string', default: 'auto' },
  'system-prompt': { type: 'string' },
  'append-system-prompt': { type: 'string' },
} as const;

function positiveInt(flag: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new UsageError(`${flag} takes a positive whole number, not "${value}"`);
  return parsed;
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} takes ${allowed.join(', ')}, not "${value}"`);
  }
  return value as T;
}

/** `skate -p "task"` and friends: one headless agent run. */
async function agent(args: string[]): Promise<number> {
  const { values, positionals } = parsed(() => parseArgs({ args, options: AGENT_OPTIONS, allowPositionals: true }));
  if (values.help) return help();
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]} (quote the task: -p "…")`);
  return agentCommand({
    ...common(values),
    prompt: values.prompt,
    outputFormat: oneOf('--output-format', values['output-format'], ['text', 'json', 'stream-json'] as const),
    model: values.model,
    maxTurns: positiveInt('--max-turns', values['max-turns']),
    maxTokens: positiveInt('--max-tokens', values['max-tokens']),
    thinkingBudgetTokens: values['thinking-budget'] ? positiveInt('--thinking-budget', values['thinking-budget']) : undefined,
    approval: oneOf('--approval', values.approval, ['auto', 'ask', 'deny-writes'] as const),
    systemPrompt: values['system-prompt'],
    appendSystemPrompt: values['append-system-prompt'],
  });
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command?.startsWith('-') && command !== '-h' && command !== '--help') return agent(argv);
  switch (command) {
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
      return executorServeCommand({
        listen: values.listen,
        policy: values.policy,
        workspace: values.workspace,
        tokenFile: values['token-file'],
        sandbox: sandboxMode(values.sandbox),
      });
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return help();
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

interface CommonValues {
  policy: string;
  workspace: string;
  executor?: string | undefined;
  verbose: boolean;
  'diagnostic-tools': boolean;
  sandbox: string;
}

function sandboxMode(value: string): SandboxMode {
  if (value !== 'required' && value !== 'best-effort') {
    throw new UsageError(`--sandbox takes required or best-effort, not "${value}"`);
  }
  return value;
}

function common(values: CommonValues): ExecutorOptions {
  return {
    sandbox: sandboxMode(values.sandbox),
    policy: values.policy,
    workspace: values.workspace,
    executor: values.executor,
    verbose: values.verbose,
    diagnosticTools: values['diagnostic-tools'],
  };
}

function help(): number {
  process.stdout.write(USAGE);
  return 0;
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`skate: ${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (error instanceof SandboxUnavailableError) {
    process.stderr.write(`skate: ${error.message}\n`);
    process.exitCode = 1;
  } else if (error instanceof ExecutorChannelError || error instanceof ExecutorRpcError) {
    process.stderr.write(`skate: executor ${error.code}: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(
      `skate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}
