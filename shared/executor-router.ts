import * as z from 'zod';
import type { ExecutorHealth } from './executor-boot.js';
import { type OutputLine, ToolCallRequest, type ToolDefinition, type ToolResult } from './tool.js';
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
