import { realpath } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { NetworkSetting } from '../../shared/policy.js';
import type { ResultContract } from '../agents/result-contracts.js';
import { type AgentCatalogEntry, setupAgentDefinitions } from '../agents/setup-agent-definitions.js';
import { createConsentStore } from '../consent/consent-store.js';
import type { ApprovalMode } from '../engine/engine-types.js';
import { parseToolRules, type ToolRules } from '../engine/tool-rules.js';
import type { HookRunner } from '../hooks/hook-runner.js';
import { setupHooks } from '../hooks/setup-hooks.js';
import type { McpPool } from '../mcp/mcp-pool.js';
import { mcpPoolFor } from '../mcp/mcp-pool-for.js';
import type { SandboxMode } from '../sandbox/choose-launcher.js';
import {
  applySettingsEnv,
  applySettingsProviders,
  loadSettings,
  type Settings,
} from '../settings/load-settings.js';
import { readAnswersFile } from './answers-file.js';
import { parseNetworkFlag } from './network-flag.js';
import { note } from './note.js';
import { readOutputSchema } from './output-schema-file.js';
import { askAtTerminal } from './terminal-question.js';
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
  /** `--input-format stream-json`: the prompts come as JSON lines on stdin. */
  inputFormat: 'text' | 'stream-json';
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
  /** Background sub-agents running at once, at most (settings' `backgroundAgents`); default 4. */
  backgroundAgents?: number | undefined;
  sessionFlags: SessionFlags;
  /** `--allowedTools` / `--disallowedTools`. */
  toolRules?: ToolRules | undefined;
  /** `--output-schema FILE`: the answer must match this JSON Schema. */
  outputSchema?: ResultContract | undefined;
  /** The run's hooks (settings files, consent, `--no-hooks`); undefined when none run. */
  hooks?: HookRunner | undefined;
  /** The agent files children may be started as (`spawn_agent` with `agent: NAME`). */
  agents?: readonly AgentCatalogEntry[] | undefined;
  /** The run's MCP servers (settings files, `.mcp.json`, consent); undefined when none are configured. */
  mcp?: McpPool | undefined;
  /**
   * With `perWorkspace` (`skate acp`, whose sessions each name their workspace): the flags of a
   * run in that workspace, its own settings, hooks, agent files and MCP servers included.
   */
  forWorkspace?: ((workspace: string) => Promise<AgentRunFlags>) | undefined;
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
  'input-format': { type: 'string', default: 'text' },
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
  'output-schema': { type: 'string' },
  // Claude Code spells them both ways.
  allowedTools: { type: 'string', multiple: true },
  'allowed-tools': { type: 'string', multiple: true },
  disallowedTools: { type: 'string', multiple: true },
  'disallowed-tools': { type: 'string', multiple: true },
  'no-hooks': { type: 'boolean', default: false },
  'trust-workspace-hooks': { type: 'boolean', default: false },
  record: { type: 'string' },
  'trust-workspace-agents': { type: 'boolean', default: false },
  'trust-workspace-mcp': { type: 'boolean', default: false },
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
 * (`~/.skate/settings.json`, then the workspace's): flags win, then SKATE_MODEL (or Claude Code's
 * ANTHROPIC_MODEL) for the model,
 * then the files, then the defaults. Applies the settings' `env` to this process.
 *
 * With `perWorkspace` (`skate acp`, whose sessions each name their workspace), only your file is
 * read at start (its `env` and providers are the process's), and `forWorkspace` gives the flags of
 * one session workspace: that workspace's settings over yours and under the flags, its hooks, agent
 * files and MCP servers (each under its consent rules), its policy. Sessions of one workspace share
 * them (one hook runner, one MCP pool) while its settings read the same.
 */
export async function agentFlags(
  values: AgentValues,
  options: { perWorkspace: true },
): Promise<AgentRunFlags & Required<Pick<AgentRunFlags, 'forWorkspace'>>>;
export async function agentFlags(
  values: AgentValues,
  options?: { perWorkspace?: false },
): Promise<AgentRunFlags>;
export async function agentFlags(
  values: AgentValues,
  options: { perWorkspace?: boolean } = {},
): Promise<AgentRunFlags> {
  const flagged = checkedFlags(values);
  // The flags are the baseline's too: a workspace file may only narrow what they and the user's file set.
  const settingsFlags = { policy: values.policy, approval: flagged.approval, network: flagged.network };
  const settings = await loadSettings({
    workspace: options.perWorkspace ? undefined : values.workspace,
    flags: settingsFlags,
  });
  applySettingsEnv(settings.env);
  applySettingsProviders(settings.providers);
  if (values.verbose) {
    note(`settings: ${settings.files.length > 0 ? settings.files.join(', ') : 'no settings files'}`);
  }
  if (!options.perWorkspace) return runFlags(values, flagged, settings, values.workspace);
  const cache = new Map<string, { read: string; flags: Promise<AgentRunFlags> }>();
  const forWorkspace = async (workspace: string): Promise<AgentRunFlags> => {
    const real = await realpath(workspace);
    const own = await loadSettings({ workspace: real, flags: settingsFlags });
    // Read again for each session, so that an edited file (a narrower policy, say) applies to the next one.
    const read = JSON.stringify(own);
    const cached = cache.get(real);
    if (cached?.read === read) return cached.flags;
    if (values.verbose) note(`settings for ${real}: ${own.files.join(', ') || 'no settings files'}`);
    const flags = runFlags(values, flagged, own, real);
    cache.set(real, { read, flags });
    flags.catch(() => {
      if (cache.get(real)?.flags === flags) cache.delete(real);
    });
    return flags;
  };
  // At start: what your file and the flags say (the model, to check its key), and nothing of a workspace.
  return { ...(await runFlags(values, flagged, settings, undefined)), forWorkspace };
}

type AgentValues = ReturnType<typeof parseAgentArgs>['values'];
type CheckedFlags = ReturnType<typeof checkedFlags>;

/** The agent flags settings files may also set, checked before any file is read: a typo is reported as a typo. */
function checkedFlags(values: AgentValues) {
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
    inputFormat: oneOf('--input-format', values['input-format'], ['text', 'stream-json'] as const),
  };
  if (flagged.inputFormat === 'stream-json' && flagged.outputFormat !== 'stream-json') {
    // As in Claude Code: a program writing JSON lines reads them too, one result per prompt.
    throw new UsageError('--input-format stream-json needs --output-format stream-json');
  }
  sandboxMode(values.sandbox);
  return flagged;
}

/**
 * The flags of a run in `workspace` under `settings` (your file and that workspace's); without a
 * workspace, none of what a workspace brings (hooks, agent files, MCP servers) is set up.
 */
async function runFlags(
  values: AgentValues,
  flagged: CheckedFlags,
  settings: Settings,
  workspace: string | undefined,
): Promise<AgentRunFlags> {
  const network = flagged.network ?? settings.network;
  const terminal = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  // Asked where a person is at a terminal; headless (piped, an editor, a service), never.
  const ask = terminal
    ? async (question: string) => /^y(es)?$/i.test(((await askAtTerminal(question)) ?? '').trim())
    : undefined;
  const hooks =
    workspace === undefined
      ? undefined
      : await setupHooks({
          sources: settings.hookSources,
          workspace,
          sandbox: sandboxMode(values.sandbox),
          disabled: values['no-hooks'] || settings.disableAllHooks === true,
          trustWorkspace: values['trust-workspace-hooks'],
          consent: createConsentStore(),
          ...(ask && { ask }),
          note,
        });
  if (values.verbose && hooks) note(`hooks: ${hooks.entries.length} configured`);
  const policy = values.policy ?? settings.policy ?? DEFAULT_POLICY;
  // Agent files only matter where spawn_agent is offered, on a local executor whose policy is known here.
  const agents =
    workspace === undefined || values['no-subagents'] || values.executor
      ? undefined
      : await setupAgentDefinitions({
          workspace,
          policy,
          trustWorkspace: values['trust-workspace-agents'],
          consent: createConsentStore(),
          ...(ask && { ask }),
          note,
        });
  if (values.verbose && agents?.length)
    note(`agents: ${agents.map((entry) => entry.definition.name).join(', ')}`);
  const mcp =
    workspace === undefined
      ? undefined
      : await mcpPoolFor(settings, {
          workspace,
          sandbox: sandboxMode(values.sandbox),
          // Headless, a workspace's servers run only when the flag or the user's setting says so (or a consent was recorded).
          trustWorkspace:
            values['trust-workspace-mcp'] || (!terminal && settings.mcp?.workspaceServersHeadless === true),
          ask,
          policy: { policy, network, addDirs: values['add-dir'] },
        });
  return {
    ...common({ ...values, policy, workspace: workspace ?? values.workspace }),
    ...(network !== undefined && { network }),
    ...(values['add-dir'] && { addDirs: values['add-dir'] }),
    outputFormat: flagged.outputFormat,
    inputFormat: flagged.inputFormat,
    model:
      values.model ??
      (process.env.SKATE_MODEL || undefined) ??
      (process.env.ANTHROPIC_MODEL || undefined) ??
      settings.model,
    maxTurns: flagged.maxTurns ?? settings.maxTurns ?? DEFAULT_MAX_TURNS,
    maxTokens: flagged.maxTokens ?? settings.maxTokens ?? DEFAULT_MAX_TOKENS,
    thinkingBudgetTokens: flagged.thinkingBudget ?? settings.thinkingBudget,
    approval: flagged.approval ?? settings.approval ?? 'auto',
    systemPrompt: values['system-prompt'],
    appendSystemPrompt: values['append-system-prompt'],
    ...(values.answers !== undefined && { answers: await readAnswersFile(values.answers) }),
    ...toolRulesFrom(values),
    ...(values['output-schema'] !== undefined && {
      outputSchema: await readOutputSchema(values['output-schema']),
    }),
    subagents: !values['no-subagents'],
    ...(settings.backgroundAgents !== undefined && { backgroundAgents: settings.backgroundAgents }),
    sessionFlags: {
      continueSession: values.continue,
      resume: values.resume,
      forkAt: values['fork-at'],
      session: !values['no-session'],
    },
    ...(hooks && { hooks }),
    ...(agents && agents.length > 0 && { agents }),
    ...(mcp && { mcp }),
  };
}

/** `--allowedTools` / `--disallowedTools` (either spelling, repeatable, comma or space separated). */
function toolRulesFrom(values: ReturnType<typeof parseAgentArgs>['values']): { toolRules?: ToolRules } {
  const allowed = [...(values.allowedTools ?? []), ...(values['allowed-tools'] ?? [])];
  const disallowed = [...(values.disallowedTools ?? []), ...(values['disallowed-tools'] ?? [])];
  if (allowed.length === 0 && disallowed.length === 0) return {};
  try {
    return {
      toolRules: {
        ...(allowed.length > 0 && { allow: parseToolRules(allowed) }),
        deny: parseToolRules(disallowed),
      },
    };
  } catch (error) {
    throw new UsageError(
      `${allowed.length > 0 ? '--allowedTools' : '--disallowedTools'}: ${(error as Error).message}`,
    );
  }
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
