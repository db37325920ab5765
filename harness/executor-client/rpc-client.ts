import { type RequestId, ResponseFrame } from '../../shared/rpc-envelope.js';
import { RpcErrorShape } from '../../shared/rpc-error.js';
import { transformer } from '../../shared/trpc.js';
import { ExecutorChannelError, type ExecutorError, ExecutorRpcError } from './executor-errors.js';

/** What a request's caller hears back. */
export interface RpcHandlers {
  data(value: unknown): void;
  started?(): void;
  stopped?(): void;
  error(error: ExecutorError): void;
}

export type ProcedureType = 'query' | 'mutation' | 'subscription';

/**
 * Request/response correlation for tRPC's WebSocket protocol over any frame
 * channel. Each request is written the moment it is made: no batching tick.
 */
export class RpcClient {
  private nextId = 1;
  private readonly pending = new Map<RequestId, { handlers: RpcHandlers; streaming: boolean }>();
  private failure: ExecutorError | undefined;

  constructor(
    private readonly sendFrame: (frame: string) => void,
    private readonly maxFrameBytes: number,
    /** Frames that belong to no request: protocol violations worth a log line. */
    private readonly onStray: (message: string) => void = () => undefined,
  ) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  request(type: ProcedureType, path: string, input: unknown, handlers: RpcHandlers): RequestId {
    const id = this.nextId++;
    if (this.failure) {
      const failure = this.failure;
      queueMicrotask(() => handlers.error(failure));
      return id;
    }
    const frame = JSON.stringify({ id, method: type, params: { path, input: transformer.serialize(input) } });
    // Refuse locally what the executor would refuse, so the caller gets a clear error at once.
    if (frame.length * 3 > this.maxFrameBytes && Buffer.byteLength(frame) > this.maxFrameBytes) {
      const bytes = Buffer.byteLength(frame);
      queueMicrotask(() =>
        handlers.error(
          new ExecutorChannelError(
            'refused',
            `${path} request of ${bytes} bytes exceeds the channel limit of ${this.maxFrameBytes} bytes`,
          ),
        ),
      );
      return id;
    }
    this.pending.set(id, { handlers, streaming: type === 'subscription' });
    this.sendFrame(frame);
    return id;
  }

  /** Asks the executor to stop a subscription or cancel a running call; the answer still arrives. */
  cancel(id: RequestId): void {
    if (this.pending.has(id)) this.sendFrame(JSON.stringify({ id, method: 'subscription.stop' }));
  }

  /** Stops listening for a request's answer. */
  forget(id: RequestId): void {
    this.pending.delete(id);
  }

  receive(text: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.onStray(`executor sent a frame that is not JSON: ${text.slice(0, 200)}`);
      return;
    }
    const parsed = ResponseFrame.safeParse(raw);
    if (!parsed.success) {
      this.onStray(`executor sent a frame outside the protocol: ${text.slice(0, 200)}`);
      return;
    }
    const frame = parsed.data;
    const request = frame.id === null ? undefined : this.pending.get(frame.id);
    const handlers = request?.handlers;
    if ('error' in frame) {
      const error = decodeError(frame.error);
      if (handlers && frame.id !== null) {
        this.pending.delete(frame.id);
        handlers.error(error);
      } else {
        this.onStray(`executor reported an error for no pending request: ${error.message}`);
      }
      return;
    }
    if (!request || !handlers) return; // An answer to a request we forgot, e.g. after a cancel.
    const result = frame.result;
    if (result.type === 'started') {
      handlers.started?.();
    } else if (result.type === 'stopped') {
      this.pending.delete(frame.id);
      handlers.stopped?.();
    } else {
      // A query or mutation has one answer; a subscription runs until `stopped`.
      if (!request.streaming) this.pending.delete(frame.id);
      let value: unknown;
      try {
        value = transformer.deserialize(result.data as never);
      } catch (error) {
        this.pending.delete(frame.id);
        handlers.error(
          new ExecutorChannelError('protocol', `undecodable result: ${(error as Error).message}`),
        );
        return;
      }
      handlers.data(value);
    }
  }

  /** Fails every pending request and every later one with `error`. */
  failAll(error: ExecutorError): void {
    this.failure ??= error;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const { handlers } of pending) handlers.error(error);
  }
}

function decodeError(encoded: unknown): ExecutorRpcError {
  let decoded: unknown = encoded;
  try {
    decoded = transformer.deserialize(encoded as never);
  } catch {
    // Fall through with the raw value; the shape check below reports it.
  }
  const shape = RpcErrorShape.safeParse(decoded);
  if (!shape.success)
    return new ExecutorRpcError('internal', `executor sent an unreadable error: ${JSON.stringify(decoded)}`);
  return new ExecutorRpcError(shape.data.data.skateCode, shape.data.message);
}
