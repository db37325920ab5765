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

/*
 * Hand-written checks that accept only what the schemas above accept, for the
 * hot path: a zod union costs more per frame than the rest of the envelope
 * handling. They may refuse what zod accepts; callers then ask zod, which also
 * words the error. test/unit/rpc/rpc-envelope.test.ts holds the two together.
 */

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'number'
    ? Number.isInteger(value) && value >= 0
    : typeof value === 'string' && value.length >= 1 && value.length <= 128;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const METHODS: ReadonlySet<unknown> = new Set(['query', 'mutation', 'subscription']);

/** `RequestFrame.safeParse(value).success`, fast, for frames a client sends. */
export function isRequestFrame(value: unknown): value is RequestFrame {
  if (!isObject(value) || !isRequestId(value.id)) return false;
  if (value.jsonrpc !== undefined && value.jsonrpc !== '2.0') return false;
  if (value.method === 'subscription.stop') return true;
  const params = value.params;
  return (
    METHODS.has(value.method) &&
    isObject(params) &&
    'input' in params &&
    typeof params.path === 'string' &&
    params.path.length >= 1 &&
    params.path.length <= 256 &&
    (params.lastEventId === undefined || typeof params.lastEventId === 'string')
  );
}

/** `ResponseFrame.safeParse(value).success`, fast, for frames an executor sends. */
export function isResponseFrame(value: unknown): value is ResponseFrame {
  if (!isObject(value)) return false;
  if (value.jsonrpc !== undefined && value.jsonrpc !== '2.0') return false;
  if ('error' in value) return value.id === null || isRequestId(value.id);
  const result = value.result;
  if (!isRequestId(value.id) || !isObject(result)) return false;
  if (result.type === 'started' || result.type === 'stopped') return true;
  return result.type === 'data' && (result.id === undefined || typeof result.id === 'string');
}
