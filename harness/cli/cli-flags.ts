import { parseArgs } from 'node:util';
import type { NetworkSetting } from '../../shared/policy.js';
import type { ApprovalMode } from '../engine/engine-types.js';
import type { SandboxMode } from '../sandbox/choose-launcher.js';
import { applySettingsEnv, loadSettings } from '../settings/load-settings.js';
import { readAnswersFile } from './answers-file.js';
import { parseNetworkFlag } from './network-flag.js';
import { note } from './note.js';
import { UsageError } from './usage-error.js';
import { usageMessage } from './usage-message.js';

/** The flags of every command that starts (or connects to) an executor. */
export interface ExecutorFlags {
  policy: string;
  workspace: string;
  /** `ws://host:port` of a remote executor; the token comes from SKATE_EXECUTOR_TOKEN. */
  executor?: string | undefined;
  diagnosticTools?: boolean;
  verbose?: boolean;
  sandbox: SandboxMode;
  /** The policy's network for this run (`--network`, or settings): on, off, or an allowlist. */
  network?: NetworkSetting | undefined;
  /** More writable roots for this run (`--add-dir`), sandboxed like the workspace. */
  addDirs?: readonly string[] | undefined;
}

export type OutputFormat = 'text' | 'json' | 'stream-json';

/** Which session an agent run records into, as the flags say. */
export interface SessionFlags {
  /** `--continue`: the latest top-level session of the workspace. */
  continueSession?: boolean | undefined;
  /** `--resume ID`. */
  resume?: string | undefined;
  /** `--fork-at EVENT_ID`, with `--resume`. */
  forkAt?: string | undefined;
  /** False with `--no-session`: nothing is recorded. */
  session?: boolean | undefined;
}

/** What the agent flags give (`skate -p`, `skate plan`, `skate execute`). */
export interface AgentRunFlags extends ExecutorFlags {
  outputFormat: OutputFormat;
  model?: string | undefined;
  maxTurns: number;
  maxTokens: number;
  thinkingBudgetTokens?: number | undefined;
  approval: ApprovalMode;
  systemPrompt?: string | undefined;
  appendSystemPrompt?: string | undefined;
  /** Recorded ask_user answers (`--answers FILE`), consumed in order. */
  answers?: string[][] | undefined;
  /** Offer spawn_agent; false with `--no-subagents`. */
  subagents: boolean;
  sessionFlags: SessionFlags;
}

/** A command's entry point: parses its own flags and runs; resolves to the exit code. */
export type CommandMain = (args: string[]) => Promise<number>;

/**
 * The one flag parser (node:util's parseArgs) and the flags several commands
 * share; each command declares the rest next to what it does.
 */

/** Options every command that starts an executor takes. */
export const COMMON = {
  policy: { type: 'string', default: 'execute' },
  workspace: { type: 'string', default: '.' },
  executor: { type: 'string' },
  verbose: { type: 'boolean', default: false },
  'diagnostic-tools': { type: 'boolean', default: false },
  sandbox: { type: 'string', default: 'required' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const DEFAULT_POLICY = 'execute';
const DEFAULT_MAX_TURNS = 50;
const DEFAULT_MAX_TOKENS = 16_000;

/** Runs a parseArgs call, turning its complaints into one-line usage errors (`known`: for "did you mean"). */
export function parsed<T>(parse: () => T, known: readonly string[] = []): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(usageMessage(error as Error, known));
  }
}

// No defaults for what settings files may set: a flag that was not given must not hide them.
export const AGENT_OPTIONS = {
  ...COMMON,
  policy: { type: 'string' },
  network: { type: 'string' },
  'add-dir': { type: 'string', multiple: true },
  // Claude Code's shape: -p/--print is a switch, and the task is the positional argument (or stdin).
  print: { type: 'boolean', short: 'p', default: false },
  'output-format': { type: 'string', default: 'text' },
  model: { type: 'string' },
  'max-turns': { type: 'string' },
  'max-tokens': { type: 'string' },
  'thinking-budget': { type: 'string' },
  approval: { type: 'string' },
  'system-prompt': { type: 'string' },
  'append-system-prompt': { type: 'string' },
  answers: { type: 'string' },
  'no-subagents': { type: 'boolean', default: false },
  continue: { type: 'boolean', short: 'c', default: false },
  resume: { type: 'string', short: 'r' },
  'fork-at': { type: 'string' },
  'no-session': { type: 'boolean', default: false },
} as const;

/**
 * Refuses agent flags a command takes from elsewhere (an editor, its HTTP clients), long or short
 * (`--print`, `--print=…`, `-p`), saying why: `why` is the first half of the message.
 */
export function refuseFlags(
  args: readonly string[],
  flags: readonly (keyof typeof AGENT_OPTIONS)[],
  why: string,
): void {
  for (const flag of flags) {
    const short = (AGENT_OPTIONS[flag] as { short?: string }).short;
    const given = args.some(
      (arg) => arg === `--${flag}` || arg.startsWith(`--${flag}=`) || (short && arg === `-${short}`),
    );
    if (given) throw new UsageError(`${why}; drop --${flag}`);
  }
}

/** `--workspace DIR [--json]`: what `sessions` and `policy show` take. */
export const WORKSPACE_JSON = {
  workspace: COMMON.workspace,
  json: { type: 'boolean', default: false },
  help: COMMON.help,
} as const;

export function positiveInt(flag: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new UsageError(`${flag} takes a positive whole number, not "${value}"`);
  return parsed;
}

export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} takes ${allowed.join(', ')}, not "${value}"`);
  }
  return value as T;
}

export function parseAgentArgs(args: string[]) {
  return parsed(
    () => parseArgs({ args, options: AGENT_OPTIONS, allowPositionals: true }),
    Object.keys(AGENT_OPTIONS),
  );
}

/**
 * The flags every agent run shares (`-p`, `plan`, `execute`), checked, over the settings files
 * (`~/.skate/settings.json`, then the workspace's): flags win, then SKATE_MODEL for the model,
 * then the files, then the defaults. Applies the settings' `env` to this process.
 */
export async function agentFlags(
  values: ReturnType<typeof parseAgentArgs>['values'],
): Promise<AgentRunFlags> {
  // Flags are checked before the settings are read: a typo is reported as a typo.
  const flagged = {
    maxTurns: values['max-turns'] === undefined ? undefined : positiveInt('--max-turns', values['max-turns']),
    maxTokens:
      values['max-tokens'] === undefined ? undefined : positiveInt('--max-tokens', values['max-tokens']),
    thinkingBudget:
      values['thinking-budget'] === undefined
        ? undefined
        : positiveInt('--thinking-budget', values['thinking-budget']),
    approval:
      values.approval === undefined
        ? undefined
        : oneOf('--approval', values.approval, ['auto', 'ask', 'deny-writes'] as const),
    network: values.network === undefined ? undefined : parseNetworkFlag(values.network),
    outputFormat: oneOf('--output-format', values['output-format'], ['text', 'json', 'stream-json'] as const),
  };
  sandboxMode(values.sandbox);
  // The flags are the baseline's too: a workspace file may only narrow what they and the user's file set.
  const settings = await loadSettings({
    workspace: values.workspace,
    flags: { policy: values.policy, approval: flagged.approval, network: flagged.network },
  });
  applySettingsEnv(settings.env);
  if (values.verbose) {
    note(`settings: ${settings.files.length > 0 ? settings.files.join(', ') : 'no settings files'}`);
  }
  const network = flagged.network ?? settings.network;
  return {
    ...common({ ...values, policy: values.policy ?? settings.policy ?? DEFAULT_POLICY }),
    ...(network !== undefined && { network }),
    ...(values['add-dir'] && { addDirs: values['add-dir'] }),
    outputFormat: flagged.outputFormat,
    model: values.model ?? (process.env.SKATE_MODEL || undefined) ?? settings.model,
    maxTurns: flagged.maxTurns ?? settings.maxTurns ?? DEFAULT_MAX_TURNS,
    maxTokens: flagged.maxTokens ?? settings.maxTokens ?? DEFAULT_MAX_TOKENS,
    thinkingBudgetTokens: flagged.thinkingBudget ?? settings.thinkingBudget,
    approval: flagged.approval ?? settings.approval ?? 'auto',
    systemPrompt: values['system-prompt'],
    appendSystemPrompt: values['append-system-prompt'],
    ...(values.answers !== undefined && { answers: await readAnswersFile(values.answers) }),
    subagents: !values['no-subagents'],
    sessionFlags: {
      continueSession: values.continue,
      resume: values.resume,
      forkAt: values['fork-at'],
      session: !values['no-session'],
    },
  };
}

export interface CommonValues {
  policy: string;
  workspace: string;
  executor?: string | undefined;
  verbose: boolean;
  'diagnostic-tools': boolean;
  sandbox: string;
}

export function sandboxMode(value: string): SandboxMode {
  if (value !== 'required' && value !== 'best-effort') {
    throw new UsageError(`--sandbox takes required or best-effort, not "${value}"`);
  }
  return value;
}

export function common(values: CommonValues): ExecutorFlags {
  return {
    sandbox: sandboxMode(values.sandbox),
    policy: values.policy,
    workspace: values.workspace,
    executor: values.executor,
    verbose: values.verbose,
    diagnosticTools: values['diagnostic-tools'],
  };
}
