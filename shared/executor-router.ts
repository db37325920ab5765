import { checkedInput } from './checked-input.js';
import type { ExecutorHealth } from './executor-boot.js';
import { checkToolCallRequest, checkToolOutputRequest } from './executor-inputs.js';
import type { OutputLine, ToolCallRequest, ToolDefinition, ToolOutputRequest, ToolResult } from './tool.js';
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

/** One procedure as served over the wire: its tRPC kind, its input parser, and what it runs. */
export interface ServedProcedure {
  readonly type: 'query' | 'mutation' | 'subscription';
  /** Parses the decoded input (throwing refuses it); absent, the procedure takes none. */
  readonly input?: (value: unknown) => unknown;
  run(input: unknown, signal: AbortSignal | undefined): unknown;
}

/*
 * Inputs are checked by hand and by zod only when refused, so serving loads no zod. Each parser
 * is made once and shared by the served table and the tRPC router, so both accept the same.
 */
const callToolInput = checkedInput(checkToolCallRequest, () =>
  import('./tool.js').then((m) => m.ToolCallRequest),
);
const toolOutputInput = checkedInput(checkToolOutputRequest, () =>
  import('./tool.js').then((m) => m.ToolOutputRequest),
);

/**
 * The executor's procedures as `RpcServer` serves them: the same procedures, parsers and
 * implementation as the router below, called without tRPC's middleware chain, which cost more
 * per call (~5 µs, spreading its options object at each step) than the tool's own work for a
 * small read.
 */
export function servedExecutorProcedures(
  impl: ExecutorProcedures,
): Readonly<Record<string, ServedProcedure>> {
  return {
    listTools: { type: 'query', run: () => impl.listTools() },
    callTool: {
      type: 'mutation',
      input: callToolInput,
      run: (input, signal) => impl.callTool(input as ToolCallRequest, signal),
    },
    toolOutput: {
      type: 'subscription',
      input: toolOutputInput,
      run: (input, signal) => impl.toolOutput((input as ToolOutputRequest).callId, signal),
    },
    health: { type: 'query', run: () => impl.health() },
    shutdown: { type: 'mutation', run: () => impl.shutdown() },
  };
}

/**
 * The executor's tRPC router. It is built here, from the wire schemas, so that
 * the harness can import its *type* from shared/ without importing executor code;
 * in-process callers (tests) call it with tRPC's `createCaller`.
 */
export function createExecutorRouter(impl: ExecutorProcedures) {
  return trpc.router({
    listTools: trpc.procedure.query(() => impl.listTools()),
    callTool: trpc.procedure
      .input(callToolInput)
      .mutation(({ input, signal }) => impl.callTool(input, signal)),
    toolOutput: trpc.procedure
      .input(toolOutputInput)
      .subscription(({ input, signal }) => impl.toolOutput(input.callId, signal)),
    health: trpc.procedure.query(() => impl.health()),
    shutdown: trpc.procedure.mutation(() => impl.shutdown()),
  });
}

export type ExecutorRouter = ReturnType<typeof createExecutorRouter>;
