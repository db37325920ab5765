import { type RequestId, ResponseFrame } from '../../shared/rpc-envelope.js';
import { RpcErrorShape } from '../../shared/rpc-error.js';
import { isResponseFrame } from '../../shared/rpc-frame-checks.js';
import { transformer } from '../../shared/rpc-transformer.js';
import { ExecutorChannelError } from './executor-errors.js';

/** What a request's caller hears back. */
export interface RpcHandlers {
  data(value: unknown): void;
  started?(): void;
  stopped?(): void;
  /** A failure here (`ExecutorChannelError`) or the executor's error shape (`RpcErrorShape`). */
  error(error: ExecutorChannelError | RpcErrorShape): void;
}

export type ProcedureType = 'query' | 'mutation' | 'subscription';

/**
 * Request/response correlation for tRPC's WebSocket protocol over any frame
 * channel. Each request is written the moment it is made (no batching tick),
 * under the id its caller gives it (the tRPC operation's own id).
 */
export class RpcClient {
  private readonly pending = new Map<RequestId, { handlers: RpcHandlers; streaming: boolean }>();
  private failure: ExecutorChannelError | undefined;
  private sent = 0;

  constructor(
    private readonly sendFrame: (frame: string) => void,
    private readonly maxFrameBytes: number,
    /** Frames that belong to no request: protocol violations worth a log line. */
    private readonly onStray: (message: string) => void = () => undefined,
  ) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Requests sent so far (stop frames not counted). */
  get requestCount(): number {
    return this.sent;
  }

  request(id: RequestId, type: ProcedureType, path: string, input: unknown, handlers: RpcHandlers): void {
    if (this.failure) {
      const failure = this.failure;
      queueMicrotask(() => handlers.error(failure));
      return;
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
      return;
    }
    this.pending.set(id, { handlers, streaming: type === 'subscription' });
    this.sent++;
    this.sendFrame(frame);
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
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      this.onStray(`executor sent a frame that is not JSON: ${text.slice(0, 200)}`);
      return;
    }
    // The envelope is only routed here; what it carries is validated once, by the caller's schema.
    let response: ResponseFrame;
    if (isResponseFrame(frame)) response = frame;
    else {
      const parsed = ResponseFrame.safeParse(frame);
      if (!parsed.success) {
        this.onStray(`executor sent a frame outside the protocol: ${text.slice(0, 200)}`);
        return;
      }
      response = parsed.data;
    }
    const request = response.id === null ? undefined : this.pending.get(response.id);
    if (!('result' in response)) {
      const error = decodeError(response.error);
      if (request && response.id !== null) {
        this.pending.delete(response.id);
        request.handlers.error(error);
      } else {
        this.onStray(`executor reported an error for no pending request: ${error.message}`);
      }
      return;
    }
    if (!request) return; // An answer to a request we forgot, e.g. after a cancel.
    const { handlers } = request;
    const result = response.result;
    if (result.type === 'started') {
      handlers.started?.();
    } else if (result.type === 'stopped') {
      this.pending.delete(response.id);
      handlers.stopped?.();
    } else {
      // A query or mutation has one answer; a subscription runs until `stopped`.
      if (!request.streaming) this.pending.delete(response.id);
      let value: unknown;
      try {
        value = transformer.deserialize(result.data as never);
      } catch (error) {
        this.pending.delete(response.id);
        handlers.error(
          new ExecutorChannelError('protocol', `undecodable result: ${(error as Error).message}`),
        );
        return;
      }
      handlers.data(value);
    }
  }

  /** Fails every pending request and every later one with `error`. */
  failAll(error: ExecutorChannelError): void {
    this.failure ??= error;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const { handlers } of pending) handlers.error(error);
  }
}

function decodeError(encoded: unknown): RpcErrorShape {
  let decoded: unknown = encoded;
  try {
    decoded = transformer.deserialize(encoded as never);
  } catch {
    // Fall through with the raw value; the shape check below reports it.
  }
  const shape = RpcErrorShape.safeParse(decoded);
  if (shape.success) return shape.data;
  const message = `executor sent an unreadable error: ${JSON.stringify(decoded)}`;
  return { code: -32603, message, data: { code: 'INTERNAL_SERVER_ERROR', skateCode: 'internal' } };
}
