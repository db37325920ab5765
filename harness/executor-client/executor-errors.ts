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
  | 'refused'
  /** A cancelled call whose end the executor did not confirm in time. */
  | 'cancelled';

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

/**
 * What a tRPC client call threw, as one of the two executor error types. The
 * executor link makes every failure a `TRPCClientError`: a local one carries an
 * `ExecutorChannelError` as its cause, an executor's one its error shape's data.
 */
export function executorErrorFromUnknown(error: unknown): ExecutorError {
  if (error instanceof ExecutorRpcError || error instanceof ExecutorChannelError) return error;
  if (error instanceof TRPCClientError) {
    if (error.cause instanceof ExecutorChannelError) return error.cause;
    const code = RpcErrorCode.safeParse((error.data as { skateCode?: unknown } | undefined)?.skateCode);
    return new ExecutorRpcError(code.success ? code.data : 'internal', error.message);
  }
  return new ExecutorChannelError('protocol', error instanceof Error ? error.message : String(error));
}
