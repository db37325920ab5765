import { type HookEventName, type HookOutcome, HookOutput } from '../../shared/hooks.js';
import type { HookVerdict } from './hook-verdict.js';
import type { HookProcessResult } from './run-hook-command.js';

/** Events a failed hook can refuse something in, when its `fail` is closed (their default). */
export const GATE_EVENTS: ReadonlySet<HookEventName> = new Set([
  'PreToolUse',
  'PermissionRequest',
  'UserPromptSubmit',
]);

/** Events whose plain stdout (exit 0, not JSON) is context for the model, as in Claude Code. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set(['UserPromptSubmit', 'SessionStart']);

export interface InterpretedHook {
  verdict: HookVerdict;
  outcome: HookOutcome;
  /** Why, in the hook's words (its reason, its stderr) or ours (a timeout). */
  reason?: string | undefined;
  /** `systemMessage`: for the user, not the model. */
  message?: string | undefined;
}

/**
 * What one hook's exit means, by Claude Code's rules: exit 0 with JSON on stdout decides (or plain
 * stdout is context, for UserPromptSubmit and SessionStart); exit 2 blocks with stderr as the
 * reason; any other exit is a non-blocking error. A timeout, a crash or a start failure follows
 * `fail` where the event can refuse something.
 */
export function interpretHookResult(
  event: HookEventName,
  result: HookProcessResult,
  fail: 'closed' | 'open' | undefined,
): InterpretedHook {
  if (result.status !== 'exited' || (result.exitCode !== 0 && result.exitCode !== 2)) {
    const why =
      result.status === 'exited'
        ? `exited with ${result.exitCode}${firstLine(result.stderr) ? `: ${firstLine(result.stderr)}` : ''}`
        : result.message;
    const closed = (fail ?? 'closed') === 'closed' && GATE_EVENTS.has(event) && result.status !== 'cancelled';
    const reason = `the ${event} hook ${why}${closed ? ' (fail: closed)' : ''}`;
    if (!closed) return { verdict: { context: [] }, outcome: 'error', reason };
    return event === 'UserPromptSubmit'
      ? { verdict: { context: [], block: reason }, outcome: 'error', reason }
      : { verdict: { context: [], permission: { decision: 'deny', reason } }, outcome: 'error', reason };
  }
  if (result.exitCode === 2) {
    const reason = result.stderr.trim() || `the ${event} hook exited with 2`;
    if (event === 'PreToolUse' || event === 'PermissionRequest') {
      return { verdict: { context: [], permission: { decision: 'deny', reason } }, outcome: 'deny', reason };
    }
    if (
      event === 'PostToolUse' ||
      event === 'UserPromptSubmit' ||
      event === 'Stop' ||
      event === 'SubagentStop'
    )
      return { verdict: { context: [], block: reason }, outcome: 'block', reason };
    return { verdict: { context: [] }, outcome: 'none', reason };
  }
  const text = result.stdout.trim();
  if (!text.startsWith('{')) {
    if (text && STDOUT_IS_CONTEXT.has(event))
      return { verdict: { context: [text] }, outcome: 'context', reason: firstLine(text) };
    return { verdict: { context: [] }, outcome: 'none' };
  }
  let parsed: HookOutput;
  try {
    const checked = HookOutput.safeParse(JSON.parse(text));
    if (!checked.success) throw new Error(checked.error.issues[0]?.message ?? 'not a hook output');
    parsed = checked.data;
  } catch (error) {
    const reason = `the ${event} hook printed JSON Skate cannot read (${(error as Error).message})`;
    return interpretHookResult(event, { ...result, exitCode: 1, stderr: reason }, fail);
  }
  return fromOutput(event, parsed);
}

function fromOutput(event: HookEventName, output: HookOutput): InterpretedHook {
  const specific = output.hookSpecificOutput;
  const verdict: HookVerdict = { context: [] };
  let outcome: HookOutcome = 'none';
  let reason: string | undefined;
  if (specific?.additionalContext) {
    verdict.context.push(specific.additionalContext);
    outcome = 'context';
    reason = firstLine(specific.additionalContext);
  }
  if (event === 'PreToolUse') {
    // `decision: approve|block` is the older spelling of allow and deny.
    const decision =
      specific?.permissionDecision ??
      (output.decision === 'approve' ? 'allow' : output.decision === 'block' ? 'deny' : undefined);
    if (decision) {
      reason = specific?.permissionDecisionReason ?? output.reason ?? '';
      verdict.permission = { decision, reason };
      outcome = decision;
    }
  } else if (event === 'PermissionRequest') {
    const behavior = specific?.decision?.behavior;
    if (behavior) {
      reason = specific?.decision?.message ?? '';
      verdict.permission = { decision: behavior, reason };
      outcome = behavior;
    }
  } else if (output.decision === 'block') {
    reason = output.reason ?? `the ${event} hook blocked it`;
    verdict.block = reason;
    outcome = 'block';
  }
  if (output.continue === false) {
    verdict.stop = output.stopReason ?? `a ${event} hook stopped the agent`;
    outcome = 'stop';
    reason = verdict.stop;
  }
  return { verdict, outcome, reason, message: output.systemMessage };
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
