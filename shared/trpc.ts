import { initTRPC, type TRPCError } from '@trpc/server';
import { z } from 'zod';
import { RPC_CODE_BY_TRPC_CODE, type RpcErrorCode } from './rpc-error.js';
import { superjsonFast } from './superjson-fast.js';

/** The transformer both ends use for procedure inputs, outputs and error shapes: superjson's format. */
export const transformer = superjsonFast;

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
    // Input validation fails with a ZodError; its pretty form names each field for the caller.
    const message = error.cause instanceof z.ZodError ? z.prettifyError(error.cause) : shape.message;
    const { stack: _stack, ...data } = shape.data;
    return { ...shape, message, data: { ...data, skateCode: skateCodeOf(error) } };
  },
});
