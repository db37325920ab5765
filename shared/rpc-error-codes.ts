/**
 * What can go wrong at the RPC layer between a harness and an executor, as carried in
 * `error.data.skateCode` (`RpcErrorCode` in rpc-error.ts is the zod enum of these). Apart from
 * the zod schemas so an executor can name its errors without loading zod.
 */
export const RPC_ERROR_CODES = [
  'malformed_frame',
  'frame_too_large',
  'unknown_procedure',
  'invalid_request',
  'duplicate_request',
  'unauthorized',
  'internal',
] as const;

/** tRPC's own error codes, mapped onto ours where the executor did not name one itself. */
export const RPC_CODE_BY_TRPC_CODE: Readonly<Record<string, (typeof RPC_ERROR_CODES)[number]>> = {
  PARSE_ERROR: 'malformed_frame',
  PAYLOAD_TOO_LARGE: 'frame_too_large',
  NOT_FOUND: 'unknown_procedure',
  BAD_REQUEST: 'invalid_request',
  CONFLICT: 'duplicate_request',
  UNAUTHORIZED: 'unauthorized',
};
