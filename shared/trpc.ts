import { initTRPC, type TRPCError } from '@trpc/server';
import type { RpcErrorCode } from './rpc-error.js';
import { RPC_CODE_BY_TRPC_CODE } from './rpc-error-codes.js';
import { transformer } from './rpc-transformer.js';

export { transformer };

/** An RPC failure that names its Skate code; thrown as the `cause` of a TRPCError. */
export class RpcFault extends Error {
  constructor(
    readonly skateCode: RpcErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RpcFault';
  }
}

function skateCodeOf(error: TRPCError): RpcErrorCode {
  if (error.cause instanceof RpcFault) return error.cause.skateCode;
  return RPC_CODE_BY_TRPC_CODE[error.code] ?? 'internal';
}

/** The tRPC root for executor routers: superjson, and error shapes that carry `skateCode`. */
export const trpc = initTRPC.create({
  transformer,
  isServer: true,
  errorFormatter({ shape, error }) {
    // Input validation (`checkedInput`) already words its refusal field by field, as zod's pretty form.
    const { stack: _stack, ...data } = shape.data;
    return { ...shape, data: { ...data, skateCode: skateCodeOf(error) } };
  },
});
