import { DEFAULT_MODEL } from '../provider/model-catalog.js';
import { configuredProviders, providerOf } from '../provider/provider-catalog.js';
import type {
  AgentSettings,
  ExecutorSettings,
  ModelSettings,
  SessionSettings,
} from '../runtime/agent-settings.js';
import { inertText } from '../terminal/inert-text.js';
import type { AgentRunFlags, ExecutorFlags, SessionFlags } from './cli-flags.js';
import { note } from './note.js';
import { createSandboxNotes } from './sandbox-notes.js';
import { UsageError } from './usage-error.js';

/** The settings of an agent run, less what the frontend adds (events, who answers). */
export type RunSettings = Omit<AgentSettings, 'events' | 'answerer' | 'onNote'>;

/** Where the executor runs, as the flags say: spawned here under `--policy`, or `--executor URL`. */
export function executorSettingsFrom(flags: ExecutorFlags): ExecutorSettings {
  if (flags.executor) {
    const token = process.env.SKATE_EXECUTOR_TOKEN;
    if (!token) throw new UsageError('--executor needs the token in SKATE_EXECUTOR_TOKEN');
    if (flags.network || flags.addDirs?.length) {
      throw new UsageError(
        `${flags.network ? '--network' : '--add-dir'} cannot change a remote executor's policy; its server chose it (skate executor serve --policy)`,
      );
    }
    return { kind: 'remote', url: flags.executor, token };
  }
  // One sink for the run's sandbox notes: each line said once however many executors start.
  const notes = createSandboxNotes({ verbose: flags.verbose ?? false, write: note });
  return {
    kind: 'local',
    policy: flags.policy,
    sandbox: flags.sandbox,
    diagnosticTools: flags.diagnosticTools ?? false,
    onSandboxNote: notes.onNote,
    onSandboxWarning: notes.onWarning,
    ...(flags.network && { network: flags.network }),
    ...(flags.addDirs?.length && { addDirs: flags.addDirs }),
    // The executor runs in the sandbox: what it logs is shown inert.
    ...(flags.verbose && {
      onLog: (line: string) => process.stderr.write(`[executor] ${inertText(line)}\n`),
    }),
  };
}

/** The session flags, checked: `--fork-at` needs `--resume`, `--no-session` continues nothing. */
export function sessionSettingsFrom(flags: SessionFlags): SessionSettings {
  if (flags.forkAt && !flags.resume) throw new UsageError('--fork-at needs --resume ID');
  if (flags.session === false) {
    if (flags.continueSession || flags.resume)
      throw new UsageError('--no-session cannot continue or resume a session');
    return { kind: 'none' };
  }
  if (flags.continueSession) return { kind: 'continue' };
  if (flags.resume) return { kind: 'resume', id: flags.resume, forkAt: flags.forkAt };
  return { kind: 'new' };
}

/** True for a Claude model without ANTHROPIC_API_KEY: `skate -p` runs the demo then. A `NAME/MODEL` never does. */
export function wantsDemo(flags: AgentRunFlags): boolean {
  return !process.env.ANTHROPIC_API_KEY && !modelName(flags).includes('/');
}

/**
 * The model the flags name, on the provider router: `NAME/MODEL` on the settings' provider NAME,
 * anything else on the Anthropic API. The SDKs are loaded (and their clients made) once the
 * executor process is spawned, while it starts: the runtime awaits both together. Without the
 * Anthropic key a Claude model is a usage error saying `missingKey`.
 */
export function modelFrom(flags: AgentRunFlags, missingKey: string): ModelSettings {
  const name = modelName(flags);
  const apiKey = process.env.ANTHROPIC_API_KEY;
  if (!providerOf(name)) {
    const slash = name.indexOf('/');
    if (slash > 0) {
      const known = Object.keys(configuredProviders());
      throw new UsageError(
        `--model ${name}: no provider "${name.slice(0, slash)}" in ~/.skate/settings.json's providers${known.length > 0 ? ` (it has ${known.join(', ')})` : ''}`,
      );
    }
    if (!apiKey) throw new UsageError(missingKey);
  }
  const onDebug = flags.verbose ? note : undefined;
  return {
    provider: () =>
      import('../provider/provider-router.js').then(({ createProviderRouter }) =>
        createProviderRouter({
          initialModel: name,
          anthropic: () =>
            apiKey
              ? import('../provider/anthropic-provider.js').then(({ createAnthropicProvider }) =>
                  createAnthropicProvider({
                    apiKey,
                    ...(process.env.ANTHROPIC_BASE_URL && { baseURL: process.env.ANTHROPIC_BASE_URL }),
                    ...(onDebug && { onDebug }),
                  }),
                )
              : undefined,
          ...(onDebug && { onDebug }),
        }),
      ),
    name,
    maxTokens: flags.maxTokens,
    thinkingBudgetTokens: flags.thinkingBudgetTokens,
  };
}

function modelName(flags: AgentRunFlags): string {
  return flags.model ?? DEFAULT_MODEL;
}

/** An agent run's settings from its flags (activity and model aside). */
export function runSettingsFrom(flags: AgentRunFlags, model: ModelSettings): RunSettings {
  const executor = executorSettingsFrom(flags);
  if (executor.kind === 'local')
    executor.restartsOnExit = 3; // a crash loses its call, not the session
  else if (flags.subagents && flags.verbose) {
    note('no sub-agents with a remote executor: its policy is not known here to narrow');
  }
  return {
    workspace: flags.workspace,
    executor,
    model,
    approval: flags.approval,
    maxTurns: flags.maxTurns,
    systemPrompt: flags.systemPrompt,
    appendSystemPrompt: flags.appendSystemPrompt,
    session: sessionSettingsFrom(flags.sessionFlags),
    subagents: flags.subagents
      ? {
          maxDepth: 2,
          ...(flags.agents && { agents: flags.agents }),
          ...(flags.backgroundAgents !== undefined && { background: { limit: flags.backgroundAgents } }),
        }
      : undefined,
    ...(flags.toolRules && { toolRules: flags.toolRules }),
    ...(flags.hooks && { hooks: flags.hooks }),
    ...(flags.mcp && { mcp: flags.mcp }),
  };
}
