import path from 'node:path';
import type { AgentPath } from '../../shared/engine-events.js';
import { type HookCommand, type HookEventName, TOOL_EVENTS } from '../../shared/hooks.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { SandboxMode } from '../sandbox/choose-launcher.js';
import { launchCommand } from '../sandbox/launch-command.js';
import {
  type AgentHooks,
  type HookFireContext,
  type HookVerdict,
  mergeVerdicts,
  NO_VERDICT,
} from './hook-verdict.js';
import { interpretHookResult } from './interpret-hook-result.js';
import { CLAUDE_CODE_TOOL_NAMES, matchesTool } from './match-tool.js';
import { runHookCommand } from './run-hook-command.js';

/**
 * How a hook's command line runs. `--norc`: Node gives a child socketpairs for stdio, and bash
 * with a socket on stdin and no SHLVL takes itself for an rsh session and reads ~/.bashrc (a
 * pyenv or nvm init there cost 1.3 s a hook here). A hook's environment is its own business.
 */
export const HOOK_SHELL = ['/bin/bash', '--norc', '--noprofile', '-c'] as const;

/** Claude Code's default: a hook gets a minute. */
const DEFAULT_TIMEOUT_SECONDS = 60;

/** One configured hook command, with where it came from and the sandbox it runs in. */
export interface HookEntry {
  event: HookEventName;
  matcher: string | undefined;
  hook: HookCommand;
  source: 'user' | 'workspace';
  file: string;
  /** The policy its command runs under (the default hook policy, or its own `policy`), resolved per workspace. */
  policy: string;
}

export interface HookRunnerOptions {
  entries: readonly HookEntry[];
  sandbox: SandboxMode;
  /** Resolves a hook's policy for the workspace of the agent firing it. */
  resolvePolicy(name: string, workspace: string): Promise<ResolvedPolicy>;
  /** What the sandbox has to say (a fallback to best effort, a scan's limits). */
  note(line: string): void;
}

/** What an agent tells its hooks about itself; read at each event (a session can be cleared or resumed). */
export interface AgentHookInfo {
  agent: AgentPath;
  /** The agent's workspace: where its hooks run (cwd, CLAUDE_PROJECT_DIR) and what their policy is resolved for. */
  workspace: string;
  sessionId(): string | undefined;
  transcriptPath(): string | undefined;
  /** Its executor's policy (a sub-agent's narrowed one); undefined for a remote executor. */
  policy(): ResolvedPolicy | undefined;
  /** Claude Code's permission_mode for the agent's approval mode and activity. */
  permissionMode(): string;
}

/** The hooks of a whole agent tree: one object, bound to each agent (`forAgent`) as it starts. */
export interface HookRunner {
  readonly entries: readonly HookEntry[];
  forAgent(info: AgentHookInfo): AgentHooks;
}

/**
 * Runs configured hooks for every agent of a tree: matching handlers of an event run at once
 * (identical command lines once), each in its own sandbox (`launchCommand`, the launcher of
 * `skate sandbox`), with Claude Code's event JSON on stdin plus Skate's own fields (`skate_agent`,
 * `skate_policy`). Each hook's result is a `hook_decision` event; their verdicts are merged.
 */
export function createHookRunner(options: HookRunnerOptions): HookRunner {
  const byEvent = new Map<HookEventName, HookEntry[]>();
  for (const entry of options.entries) {
    byEvent.set(entry.event, [...(byEvent.get(entry.event) ?? []), entry]);
  }
  const resolved = new Map<string, Promise<ResolvedPolicy>>();
  const policyFor = (name: string, workspace: string): Promise<ResolvedPolicy> => {
    const key = `${name}\0${workspace}`;
    let policy = resolved.get(key);
    if (!policy) {
      policy = options.resolvePolicy(name, workspace);
      policy.catch(() => resolved.delete(key));
      resolved.set(key, policy);
    }
    return policy;
  };
  const fire = async (
    info: AgentHookInfo,
    event: HookEventName,
    input: Record<string, unknown>,
    context: HookFireContext,
  ): Promise<HookVerdict> => {
    const matching = selectEntries(byEvent.get(event) ?? [], event, context.tool?.name);
    if (matching.length === 0) return NO_VERDICT;
    const policy = info.policy();
    const stdin = JSON.stringify({
      session_id: info.sessionId() ?? '',
      transcript_path: info.transcriptPath() ?? '',
      cwd: info.workspace,
      permission_mode: info.permissionMode(),
      hook_event_name: event,
      ...(context.tool && {
        tool_use_id: context.tool.callId,
        ...(CLAUDE_CODE_TOOL_NAMES[context.tool.name] && {
          skate_claude_code_tool_name: CLAUDE_CODE_TOOL_NAMES[context.tool.name],
        }),
      }),
      ...input,
      ...(input.tool_input !== undefined && {
        tool_input: claudeToolInput(input.tool_input, info.workspace),
      }),
      skate_agent: info.agent,
      ...(policy && {
        skate_policy: { name: policy.name, write: policy.write.allow, network: policy.network.mode },
      }),
    });
    const verdicts = await Promise.all(
      matching.map(async (entry) => {
        const result = await runHookCommand({
          launch: async () =>
            launchCommand(
              await policyFor(entry.policy, info.workspace),
              options.sandbox,
              [...HOOK_SHELL, entry.hook.command],
              {
                note: options.note,
                onNote: options.note,
                onWarning: options.note,
              },
            ),
          cwd: info.workspace,
          stdin,
          timeoutMs: (entry.hook.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
          signal: context.signal,
          env: { CLAUDE_PROJECT_DIR: info.workspace, SKATE_PROJECT_DIR: info.workspace },
        });
        const interpreted = interpretHookResult(event, result, entry.hook.fail);
        context.emit({
          type: 'hook_decision',
          agent: info.agent,
          event,
          command: entry.hook.command,
          source: entry.source,
          outcome: interpreted.outcome,
          ...(interpreted.reason && { reason: interpreted.reason }),
          ...(interpreted.message && { message: interpreted.message }),
          ...(context.tool && { toolName: context.tool.name, callId: context.tool.callId }),
          ...(result.status === 'exited' && { exitCode: result.exitCode }),
          durationMs: result.durationMs,
        });
        return interpreted.verdict;
      }),
    );
    return verdicts.reduce(mergeVerdicts, NO_VERDICT);
  };
  return {
    entries: options.entries,
    forAgent(info) {
      return {
        agent: info.agent,
        has: (event) => (byEvent.get(event)?.length ?? 0) > 0,
        fire: (event, input, context) => fire(info, event, input, context),
      };
    },
  };
}

/**
 * Claude Code's file tools name their file `file_path`, absolute; Skate's say `path`, relative to
 * the workspace. Both are given, so a script reading `.tool_input.file_path` works unchanged.
 */
function claudeToolInput(input: unknown, workspace: string): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const record = input as Record<string, unknown>;
  if (typeof record.path !== 'string' || record.file_path !== undefined) return input;
  return { ...record, file_path: path.resolve(workspace, record.path) };
}

/** The entries whose matcher takes the tool (tool events only), each command line once. */
function selectEntries(
  entries: readonly HookEntry[],
  event: HookEventName,
  tool: string | undefined,
): HookEntry[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    if (TOOL_EVENTS.has(event) && !matchesTool(entry.matcher, tool ?? '')) return false;
    if (seen.has(entry.hook.command)) return false;
    seen.add(entry.hook.command);
    return true;
  });
}
