import * as z from 'zod';

/**
 * What can go wrong at the RPC layer between a harness and an executor, as
 * carried in `error.data.skateCode`. Tool failures are not here: they are
 * results (`ToolResult.isError`).
 */
export const RpcErrorCode = z.enum([
  'malformed_frame',
  'frame_too_large',
  'unknown_procedure',
  'invalid_request',
  'duplicate_request',
  'unauthorized',
  'internal',
]);
export type RpcErrorCode = z.infer<typeof RpcErrorCode>;

/** The error shape an executor sends, after the transformer has been undone. */
export const RpcErrorShape = z.object({
  code: z.number(),
  message: z.string(),
  data: z.looseObject({
    code: z.string(),
    skateCode: RpcErrorCode,
    path: z.string().optional(),
  }),
});
export type RpcErrorShape = z.infer<typeof RpcErrorShape>;

/** tRPC's own error codes, mapped onto ours where the executor did not name one itself. */
export const RPC_CODE_BY_TRPC_CODE: Readonly<Record<string, RpcErrorCode>> = {
  PARSE_ERROR: 'malformed_frame',
  PAYLOAD_TOO_LARGE: 'frame_too_large',
  NOT_FOUND: 'unknown_procedure',
  BAD_REQUEST: 'invalid_request',
  CONFLICT: 'duplicate_request',
  UNAUTHORIZED: 'unauthorized',
};
