import { TRPCClientError } from '@trpc/client';
import { RpcErrorCode } from '../../shared/rpc-error.js';

/** An error an executor reported over the wire, with its Skate code. */
export class ExecutorRpcError extends Error {
  constructor(
    readonly code: RpcErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ExecutorRpcError';
  }
}

export type ExecutorChannelErrorCode =
  /** The executor process could not be started. */
  | 'spawn_failed'
  /** The executor process ended; pending calls fail with this. */
  | 'exited'
  /** The executor did not answer its first request in time. */
  | 'startup_timeout'
  /** The client was shut down, or the connection closed. */
  | 'closed'
  /** The peer sent something that is not the protocol. */
  | 'protocol'
  /** A request was refused before it was sent, e.g. too large for the channel. */
  | 'refused';

/** A failure on this side of the channel. It happens locally and is never serialized. */
export class ExecutorChannelError extends Error {
  constructor(
    readonly code: ExecutorChannelErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ExecutorChannelError';
  }
}

export type ExecutorError = ExecutorRpcError | ExecutorChannelError;

/** Unwraps what a tRPC client call threw into one of the two executor error types. */
export function executorErrorFromUnknown(error: unknown): ExecutorError {
  let cause: unknown = error;
  while (cause instanceof TRPCClientError && cause.cause && cause.cause !== cause) cause = cause.cause;
  if (cause instanceof ExecutorRpcError || cause instanceof ExecutorChannelError) return cause;
  if (error instanceof TRPCClientError) {
    const code = RpcErrorCode.safeParse(error.data?.skateCode);
    return new ExecutorRpcError(code.success ? code.data : 'internal', error.message);
  }
  return new ExecutorChannelError('protocol', error instanceof Error ? error.message : String(error));
}
