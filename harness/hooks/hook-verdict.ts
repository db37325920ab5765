import type { AgentPath, EngineEvent } from '../../shared/engine-events.js';
import type { HookEventName } from '../../shared/hooks.js';

/** What every hook that matched an event came to, together. */
export interface HookVerdict {
  /** PreToolUse and PermissionRequest: deny wins over ask, ask over allow. */
  permission?: { decision: 'allow' | 'deny' | 'ask'; reason: string } | undefined;
  /** Exit 2 or `decision: "block"`: the prompt, the stop or the result is refused, for this reason. */
  block?: string | undefined;
  /** `additionalContext` (and plain stdout of UserPromptSubmit and SessionStart), for the model. */
  context: string[];
  /** `continue: false`: the agent stops, with this reason for the user. */
  stop?: string | undefined;
}

export const NO_VERDICT: HookVerdict = { context: [] };

/** Where and for what an event is fired. */
export interface HookFireContext {
  signal: AbortSignal;
  emit(event: EngineEvent): void;
  /** For tool events: the tool's name (what matchers are tried on) and the model's call id. */
  tool?: { name: string; callId: string } | undefined;
}

/**
 * The hooks of one agent: the tree's hooks bound to this agent's path, session and policy. The
 * engine fires events through it, at its one tool-call path, whatever the agent's depth.
 */
export interface AgentHooks {
  /** Whether any hook listens to `event` (so the engine builds no input for nobody). */
  has(event: HookEventName): boolean;
  fire(event: HookEventName, input: Record<string, unknown>, context: HookFireContext): Promise<HookVerdict>;
  readonly agent: AgentPath;
}

const RANK = { allow: 0, ask: 1, deny: 2 } as const;

/** Folds one hook's verdict into the others'. */
export function mergeVerdicts(a: HookVerdict, b: HookVerdict): HookVerdict {
  const permission =
    !a.permission || (b.permission && RANK[b.permission.decision] > RANK[a.permission.decision])
      ? b.permission
      : a.permission;
  const block = [a.block, b.block].filter((text): text is string => Boolean(text)).join('\n') || undefined;
  return { permission, block, context: [...a.context, ...b.context], stop: a.stop ?? b.stop };
}
