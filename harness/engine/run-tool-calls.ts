import type { ContentBlock } from '../../shared/conversation.js';
import type { AgentPath, TokenUsage } from '../../shared/engine-events.js';
import type { ToolDefinition, ToolResult } from '../../shared/tool.js';
import type { AgentHooks } from '../hooks/hook-verdict.js';
import { checkApproval, notRunCancelled } from './approval-gate.js';
import type { ApprovalMode, CommandInbox, Emitter, MetaTool, ToolHost } from './engine-types.js';
import type { LoadedTools } from './loaded-tools.js';
import { garbledCallResult, inputErrorOf } from './tool-call-repair.js';
import { refusedByRules, type ToolRules } from './tool-rules.js';

export type ToolUseBlock = Extract<ContentBlock, { type: 'tool_use' }>;
export type ToolResultBlock = Extract<ContentBlock, { type: 'tool_result' }>;

export interface ToolCallContext {
  tools: ToolHost;
  metaTools: ReadonlyMap<string, MetaTool>;
  /** Every tool the model was offered, by name, for its effect. */
  definitions: ReadonlyMap<string, ToolDefinition>;
  approval: ApprovalMode;
  approvalUnattended?: boolean;
  /** The deferred tools loaded: a call to one not loaded yet is refused, and loads it. */
  loadedTools?: LoadedTools | undefined;
  /** `--allowedTools` / `--disallowedTools`: checked before the approval gate. */
  toolRules?: ToolRules | undefined;
  inbox: CommandInbox;
  signal: AbortSignal;
  emitter: Emitter;
  agent: AgentPath;
  addUsage(usage: TokenUsage): void;
  endRun(): void;
  /** A hook's `continue: false`: the run ends after this turn, as blocked (not complete). */
  stopByHook(reason: string): void;
  /** PreToolUse before the approval check, PostToolUse after the call: for every agent, here. */
  hooks?: AgentHooks | undefined;
}

/**
 * Runs all the calls of one assistant message at once and returns their
 * tool_result blocks in the order the model made the calls. Every call gets a
 * result, interrupted ones included, so the conversation stays valid.
 */
export function runToolCalls(
  calls: readonly ToolUseBlock[],
  context: ToolCallContext,
): Promise<ToolResultBlock[]> {
  return Promise.all(calls.map((call) => runToolCall(call, context)));
}

async function runToolCall(call: ToolUseBlock, context: ToolCallContext): Promise<ToolResultBlock> {
  const { emitter, agent, signal, hooks } = context;
  const effect = context.definitions.get(call.name)?.effect;
  // Arguments that are not JSON run nothing and need no approval: the result tells the model why.
  const garbled = inputErrorOf(call) === undefined ? undefined : garbledCallResult(call);
  // The run's tool rules before any hook: a hook's allow skips the approval, never a rule.
  const refused = garbled ?? notLoaded(call, context) ?? refusedByRule(call, context);
  const pre: PreToolUseResult = refused ? { context: [] } : await preToolUse(call, context);
  const blocked =
    refused ??
    pre.blocked ??
    (pre.allowed
      ? undefined
      : await checkApproval(
          { id: call.id, name: call.name, input: call.input, effect },
          {
            mode: context.approval,
            inbox: context.inbox,
            signal,
            emitter,
            agent,
            ...(context.approvalUnattended && { unattended: true }),
            ...(pre.ask && { forceAsk: pre.ask }),
            ...(hooks && { hooks }),
          },
        ));
  // durationMs is the call's own time, not the time the user took to answer.
  const started = performance.now();
  let result = blocked ?? (await execute(call, context));
  if (!blocked && hooks?.has('PostToolUse')) result = await postToolUse(call, result, context);
  if (pre.context.length > 0) result = { ...result, output: `${result.output}\n\n${pre.context.join('\n')}` };
  emitter.emit({
    type: 'tool_call_result',
    agent,
    id: call.id,
    name: call.name,
    output: result.output,
    isError: result.isError,
    ...(result.code !== undefined && { code: result.code }),
    ...(result.display !== undefined && { display: result.display }),
    durationMs: performance.now() - started,
  });
  // A user's block was announced by the gate; a denial from the tool is the sandbox policy's.
  if (!blocked && result.code === 'denied') {
    emitter.emit({
      type: 'action_blocked',
      agent,
      id: call.id,
      name: call.name,
      by: 'policy',
      reason: result.output,
    });
  }
  return {
    type: 'tool_result',
    callId: call.id,
    output: result.output,
    isError: result.isError,
    // For people only (the provider sends output and isError): the log keeps what the call showed.
    ...(result.display !== undefined && { display: result.display }),
  };
}

/**
 * A call to a deferred tool whose schema the model was not given: refused (its arguments are a
 * guess), and the schema is loaded, so the model's next request has it and it can call again.
 */
function notLoaded(call: ToolUseBlock, context: ToolCallContext): ToolResult | undefined {
  const { loadedTools } = context;
  if (!loadedTools || !context.metaTools.get(call.name)?.deferred || loadedTools.has(call.name))
    return undefined;
  loadedTools.load([call.name]);
  return {
    output: `${call.name} was not run: its input schema had not been loaded (tool_search loads the tools it finds). It is loaded now: call it again with arguments that match its schema.`,
    isError: true,
    code: 'invalid_input',
  };
}

/** The result of a call the run's tool rules refuse (after `action_blocked`), or undefined. */
function refusedByRule(call: ToolUseBlock, context: ToolCallContext): ToolResult | undefined {
  const reason = context.toolRules && refusedByRules(context.toolRules, call);
  if (!reason) return undefined;
  const { emitter, agent } = context;
  emitter.emit({ type: 'action_blocked', agent, id: call.id, name: call.name, by: 'policy', reason });
  return {
    output: `${call.name} was not run: ${reason}. Do the task with the calls allowed, or say what you would need.`,
    isError: true,
    code: 'denied',
  };
}

interface PreToolUseResult {
  /** A hook denied the call (or stopped the agent): the result the model gets instead. */
  blocked?: ToolResult;
  /** A hook allowed it: no approval is asked. */
  allowed?: boolean;
  /** A hook wants a person to approve it, whatever the approval mode; the reason to show. */
  ask?: string;
  context: string[];
}

/**
 * PreToolUse, before the approval check, for every call of every agent (meta tools too): a deny
 * is final, an allow skips the approval, an ask asks even in auto mode (and is refused where
 * nobody can answer).
 */
async function preToolUse(call: ToolUseBlock, context: ToolCallContext): Promise<PreToolUseResult> {
  const { hooks, emitter, agent, signal } = context;
  if (!hooks?.has('PreToolUse')) return { context: [] };
  const verdict = await hooks.fire(
    'PreToolUse',
    { tool_name: call.name, tool_input: call.input },
    { signal, emit: (event) => emitter.emit(event), tool: { name: call.name, callId: call.id } },
  );
  if (verdict.stop !== undefined) {
    const reason = `a PreToolUse hook stopped the agent: ${verdict.stop}`;
    context.stopByHook(reason);
    emitter.emit({ type: 'action_blocked', agent, id: call.id, name: call.name, by: 'hook', reason });
    return {
      blocked: { output: `${call.name} was not run: ${reason}.`, isError: true, code: 'denied' },
      context: [],
    };
  }
  const permission = verdict.permission;
  if (permission?.decision === 'deny') {
    const reason = permission.reason || 'a PreToolUse hook denied it';
    emitter.emit({ type: 'action_blocked', agent, id: call.id, name: call.name, by: 'hook', reason });
    return {
      blocked: {
        output: `${call.name} was not run: a PreToolUse hook denied it: ${reason}`,
        isError: true,
        code: 'denied',
      },
      context: [],
    };
  }
  if (permission?.decision === 'allow') return { allowed: true, context: verdict.context };
  if (permission?.decision === 'ask')
    return { ask: permission.reason || 'a PreToolUse hook asks', context: verdict.context };
  return { context: verdict.context };
}

/** PostToolUse, once the call ran: a block and added context reach the model with the result. */
async function postToolUse(
  call: ToolUseBlock,
  result: ToolResult,
  context: ToolCallContext,
): Promise<ToolResult> {
  const { hooks, emitter, signal } = context;
  if (!hooks) return result;
  const verdict = await hooks.fire(
    'PostToolUse',
    {
      tool_name: call.name,
      tool_input: call.input,
      tool_response: {
        output: result.output,
        isError: result.isError,
        ...(result.code && { code: result.code }),
      },
    },
    { signal, emit: (event) => emitter.emit(event), tool: { name: call.name, callId: call.id } },
  );
  const notes = [...(verdict.block ? [`PostToolUse hook: ${verdict.block}`] : []), ...verdict.context];
  if (verdict.stop !== undefined) {
    const message = `a PostToolUse hook stopped the agent: ${verdict.stop}`;
    context.stopByHook(message);
    emitter.emit({ type: 'warn', agent: context.agent, message });
  }
  return notes.length > 0 ? { ...result, output: `${result.output}\n\n${notes.join('\n')}` } : result;
}

/** A meta tool runs here; everything else goes to the tool host. Neither may throw past this point. */
async function execute(call: ToolUseBlock, context: ToolCallContext): Promise<ToolResult> {
  const { signal, emitter, agent } = context;
  if (signal.aborted) return notRunCancelled(call.name);
  const meta = context.metaTools.get(call.name);
  try {
    if (meta) {
      return await meta.run({
        callId: call.id,
        input: call.input,
        signal,
        emit: (event) => emitter.emit(event),
        inbox: context.inbox,
        agent,
        addUsage: context.addUsage,
        endRun: context.endRun,
      });
    }
    return await context.tools.callTool(call.name, call.input, {
      signal,
      // The host numbers calls its own way; events carry the model's tool_use id.
      onOutput: (line) =>
        emitter.emit({ type: 'tool_output_line', agent, id: call.id, stream: line.stream, text: line.text }),
    });
  } catch (error) {
    if (signal.aborted) return { output: `${call.name} was cancelled.`, isError: true, code: 'cancelled' };
    const message = error instanceof Error ? error.message : String(error);
    const where = meta ? 'failed' : 'could not be run: the executor failed';
    return { output: `${call.name} ${where} (${message}).`, isError: true, code: 'internal' };
  }
}
