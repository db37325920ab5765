import type { ContentBlock } from '../../shared/conversation.js';
import type { AgentPath, TokenUsage } from '../../shared/engine-events.js';
import type { ToolDefinition, ToolResult } from '../../shared/tool.js';
import { checkApproval, notRunCancelled } from './approval-gate.js';
import type { ApprovalMode, CommandInbox, Emitter, MetaTool, ToolHost } from './engine-types.js';

export type ToolUseBlock = Extract<ContentBlock, { type: 'tool_use' }>;
export type ToolResultBlock = Extract<ContentBlock, { type: 'tool_result' }>;

export interface ToolCallContext {
  tools: ToolHost;
  metaTools: ReadonlyMap<string, MetaTool>;
  /** Every tool the model was offered, by name, for its effect. */
  definitions: ReadonlyMap<string, ToolDefinition>;
  approval: ApprovalMode;
  approvalUnattended?: boolean;
  inbox: CommandInbox;
  signal: AbortSignal;
  emitter: Emitter;
  agent: AgentPath;
  addUsage(usage: TokenUsage): void;
  endRun(): void;
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
  const { emitter, agent, signal } = context;
  const effect = context.definitions.get(call.name)?.effect;
  const blocked = await checkApproval(
    { id: call.id, name: call.name, input: call.input, effect },
    {
      mode: context.approval,
      inbox: context.inbox,
      signal,
      emitter,
      agent,
      ...(context.approvalUnattended && { unattended: true }),
    },
  );
  // durationMs is the call's own time, not the time the user took to answer.
  const started = performance.now();
  const result = blocked ?? (await execute(call, context));
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
