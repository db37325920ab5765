import * as z from 'zod';
import { ExecutorHealth } from './executor-boot.js';
import { OutputLine, ToolCallRequest, ToolDefinition, ToolResult } from './tool.js';
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
 */
export function createExecutorRouter(impl: ExecutorProcedures) {
  return trpc.router({
    listTools: trpc.procedure.query(() => impl.listTools()),
    callTool: trpc.procedure
      .input(ToolCallRequest)
      .mutation(({ input, signal }) => impl.callTool(input, signal)),
    toolOutput: trpc.procedure
      .input(z.object({ callId: z.string().min(1).max(128) }))
      .subscription(({ input, signal }) => impl.toolOutput(input.callId, signal)),
    health: trpc.procedure.query(() => impl.health()),
    shutdown: trpc.procedure.mutation(() => impl.shutdown()),
  });
}

export type ExecutorRouter = ReturnType<typeof createExecutorRouter>;

/**
 * What each procedure sends back, as a client checks it on arrival: the one
 * validation of an executor's answers on the harness side (the executor's
 * procedures validate their inputs, once, on the other side).
 */
export const executorOutputs = {
  listTools: z.array(ToolDefinition),
  callTool: ToolResult,
  toolOutput: OutputLine,
  health: ExecutorHealth,
  shutdown: z.object({ ok: z.literal(true) }),
} satisfies Record<keyof ExecutorRouter['_def']['procedures'], z.ZodType>;
