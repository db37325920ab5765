import { randomUUID } from 'node:crypto';
import type { AgentPath, EngineCommand } from '../../shared/engine-events.js';
import type { ToolEffect, ToolResult } from '../../shared/tool.js';
import type { AgentHooks } from '../hooks/hook-verdict.js';
import type { ApprovalMode, CommandInbox, Emitter } from './engine-types.js';

export interface ApprovalCall {
  id: string;
  name: string;
  input: unknown;
  /** The tool's declared effect; undefined for a tool nobody offers (the host will say so). */
  effect: ToolEffect | undefined;
}

export interface ApprovalContext {
  mode: ApprovalMode;
  inbox: CommandInbox;
  signal: AbortSignal;
  emitter: Emitter;
  agent: AgentPath;
  /** With `ask`: nobody is attached to approve, so a call that would ask is refused at once. */
  unattended?: boolean;
  /** A PreToolUse hook asked for a person's approval (its reason): asked whatever the mode and effect. */
  forceAsk?: string;
  /** PermissionRequest may answer before a person is asked; Notification hears that one is. */
  hooks?: AgentHooks;
}

/**
 * Decides whether a call may run under the approval mode. Returns undefined
 * to let it run, or the result the model gets instead (after `action_blocked`).
 * Read-only tools never ask: the sandbox policy is their gate.
 */
export async function checkApproval(
  call: ApprovalCall,
  context: ApprovalContext,
): Promise<ToolResult | undefined> {
  const { mode, emitter, agent } = context;
  const effect = call.effect;
  const forced = context.forceAsk !== undefined;
  if (!forced && (mode === 'auto' || (effect !== 'write' && effect !== 'execute'))) return undefined;
  if (!forced && mode === 'deny-writes') {
    const what = effect === 'write' ? 'changes files' : 'runs commands';
    const reason = `approval mode deny-writes refuses tools that write files or run commands, and ${call.name} ${what}`;
    emitter.emit({ type: 'action_blocked', agent, id: call.id, name: call.name, by: 'user', reason });
    return {
      output: `${call.name} was not run: the ${reason}. Continue with read-only tools, or tell the user what you would change.`,
      isError: true,
      code: 'denied',
    };
  }
  const hooked = await permissionRequest(call, context);
  if (hooked !== 'ask') return hooked;
  if (context.unattended) {
    // Said as what happened: no person said anything, so nothing is put in the user's mouth.
    const reason = `no one is attached to approve ${call.name} calls (approval mode ask in a headless run)`;
    emitter.emit({ type: 'action_blocked', agent, id: call.id, name: call.name, by: 'user', reason });
    return {
      output: `${call.name} was not run: ${reason}. Continue with read-only tools, and tell the user what you would change; running it needs --approval auto or a terminal to approve at.`,
      isError: true,
      code: 'denied',
    };
  }
  const requestId = randomUUID();
  void context.hooks
    ?.fire(
      'Notification',
      { message: `Skate needs your permission to use ${call.name}`, notification_type: 'permission_prompt' },
      { signal: context.signal, emit: (event) => emitter.emit(event) },
    )
    .catch(() => undefined);
  emitter.emit({
    type: 'approval_request',
    agent,
    requestId,
    callId: call.id,
    name: call.name,
    args: call.input,
    // A hook may ask about a read-only call too: it is shown as a call that acts.
    effect: effect === 'write' ? 'write' : 'execute',
  });
  let response: Extract<EngineCommand, { type: 'approval_response' }>;
  try {
    response = await context.inbox.waitFor('approval_response', requestId, context.signal);
  } catch (error) {
    if (context.signal.aborted) return notRunCancelled(call.name);
    const why = error instanceof Error ? error.message : String(error);
    emitter.emit({ type: 'action_blocked', agent, id: call.id, name: call.name, by: 'user', reason: why });
    return { output: `${call.name} was not run: no approval came (${why}).`, isError: true, code: 'denied' };
  }
  if (response.decision === 'approve') return undefined;
  const feedback = response.feedback?.trim();
  const reason = feedback ? `rejected by the user: ${feedback}` : 'rejected by the user';
  emitter.emit({ type: 'action_blocked', agent, id: call.id, name: call.name, by: 'user', reason });
  const told = feedback
    ? `The user rejected this ${call.name} call and said: ${feedback}`
    : `The user rejected this ${call.name} call. Ask them how to proceed, or try another approach.`;
  return { output: told, isError: true, code: 'denied' };
}

/**
 * PermissionRequest hooks, before a person would be asked: their allow runs the call, their deny
 * refuses it; otherwise ('ask') the person is asked as usual.
 */
async function permissionRequest(
  call: ApprovalCall,
  context: ApprovalContext,
): Promise<ToolResult | undefined | 'ask'> {
  const { hooks, emitter, agent } = context;
  if (!hooks?.has('PermissionRequest')) return 'ask';
  const verdict = await hooks.fire(
    'PermissionRequest',
    { tool_name: call.name, tool_input: call.input },
    {
      signal: context.signal,
      emit: (event) => emitter.emit(event),
      tool: { name: call.name, callId: call.id },
    },
  );
  if (verdict.permission?.decision === 'allow') return undefined;
  if (verdict.permission?.decision !== 'deny') return 'ask';
  const reason = verdict.permission.reason || 'a PermissionRequest hook denied it';
  emitter.emit({ type: 'action_blocked', agent, id: call.id, name: call.name, by: 'hook', reason });
  return { output: `${call.name} was not run: ${reason}`, isError: true, code: 'denied' };
}

/** The result of a call that was never started because the run was interrupted. */
export function notRunCancelled(name: string): ToolResult {
  return { output: `${name} was not run: the user interrupted.`, isError: true, code: 'cancelled' };
}
