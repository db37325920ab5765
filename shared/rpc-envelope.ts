import * as z from 'zod';

/**
 * The frames of tRPC's WebSocket protocol (JSON-RPC 2.0 shaped), written once
 * here so both ends validate them. The same frames travel over the private
 * stdio channel (one per line) and over ws for remote executors, so a stock
 * tRPC `wsLink` can also talk to a remote executor.
 */
export const RequestId = z.union([z.number().int().nonnegative(), z.string().min(1).max(128)]);
export type RequestId = z.infer<typeof RequestId>;

export const ProcedureCall = z.object({
  id: RequestId,
  jsonrpc: z.literal('2.0').optional(),
  method: z.enum(['query', 'mutation', 'subscription']),
  params: z.object({
    path: z.string().min(1).max(256),
    /** Transformer-encoded (superjson) input. */
    input: z.unknown(),
    lastEventId: z.string().optional(),
  }),
});
export type ProcedureCall = z.infer<typeof ProcedureCall>;

/** Ends a subscription; Skate executors also accept it to cancel a running query or mutation. */
export const StopRequest = z.object({
  id: RequestId,
  jsonrpc: z.literal('2.0').optional(),
  method: z.literal('subscription.stop'),
});

export const RequestFrame = z.union([ProcedureCall, StopRequest]);
export type RequestFrame = z.infer<typeof RequestFrame>;

export const ResultFrame = z.object({
  id: RequestId,
  jsonrpc: z.literal('2.0').optional(),
  result: z.union([
    z.object({ type: z.literal('data'), data: z.unknown(), id: z.string().optional() }),
    z.object({ type: z.literal('started') }),
    z.object({ type: z.literal('stopped') }),
  ]),
});

export const ErrorFrame = z.object({
  id: RequestId.nullable(),
  jsonrpc: z.literal('2.0').optional(),
  /** Transformer-encoded error shape; see `RpcErrorShape`. */
  error: z.unknown(),
});

export const ResponseFrame = z.union([ResultFrame, ErrorFrame]);
export type ResponseFrame = z.infer<typeof ResponseFrame>;

// The hand-written checks of these frames, for the hot path, are in rpc-frame-checks.ts (no zod there).
