import { checkedInput } from './checked-input.js';
import type { ExecutorHealth } from './executor-boot.js';
import { checkToolCallRequest, checkToolOutputRequest } from './executor-inputs.js';
import type { OutputLine, ToolCallRequest, ToolDefinition, ToolResult } from './tool.js';
import { trpc } from './trpc.js';

/** What an executor implements; `createExecutorRouter` turns it into the tRPC router. */
export interface ExecutorProcedures {
  listTools(): Promise<ToolDefinition[]>;
  callTool(request: ToolCallRequest, signal: AbortSignal | undefined): Promise<ToolResult>;
  toolOutput(callId: string, signal: AbortSignal | undefined): AsyncIterable<OutputLine>;
  health(): ExecutorHealth;
  /** Stops accepting calls, cancels running ones and exits after the reply is sent. */
  shutdown(): { ok: true };
}

/**
 * The executor's tRPC router. It is built here, from the wire schemas, so that
 * the harness can import its *type* from shared/ without importing executor code.
 * Inputs are checked by hand and by zod only when refused, so serving loads no zod.
 */
export function createExecutorRouter(impl: ExecutorProcedures) {
  return trpc.router({
    listTools: trpc.procedure.query(() => impl.listTools()),
    callTool: trpc.procedure
      .input(checkedInput(checkToolCallRequest, () => import('./tool.js').then((m) => m.ToolCallRequest)))
      .mutation(({ input, signal }) => impl.callTool(input, signal)),
    toolOutput: trpc.procedure
      .input(checkedInput(checkToolOutputRequest, () => import('./tool.js').then((m) => m.ToolOutputRequest)))
      .subscription(({ input, signal }) => impl.toolOutput(input.callId, signal)),
    health: trpc.procedure.query(() => impl.health()),
    shutdown: trpc.procedure.mutation(() => impl.shutdown()),
  });
}

export type ExecutorRouter = ReturnType<typeof createExecutorRouter>;
