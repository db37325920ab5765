import * as z from 'zod';
import { RPC_ERROR_CODES } from './rpc-error-codes.js';

/**
 * What can go wrong at the RPC layer between a harness and an executor, as carried in
 * `error.data.skateCode`. Tool failures are not here: they are results (`ToolResult.isError`).
 */
export const RpcErrorCode = z.enum(RPC_ERROR_CODES);
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
