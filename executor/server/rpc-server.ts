import { getTRPCErrorFromUnknown, getTRPCErrorShape, TRPCError } from '@trpc/server';
import type { ServedProcedure } from '../../shared/executor-router.js';
import type { ProcedureCall, RequestFrame, RequestId } from '../../shared/rpc-envelope.js';
import { isRequestFrame } from '../../shared/rpc-frame-checks.js';
import { RpcFault, transformer, trpc } from '../../shared/trpc.js';

export interface RpcServerOptions {
  /** What is served, by path (`servedExecutorProcedures`); errors are shaped by `trpc`'s formatter. */
  procedures: Readonly<Record<string, ServedProcedure>>;
  /** Writes one frame to the peer (the channel adds framing). */
  send(frame: string): void;
  /** Reports errors of the server itself, e.g. an unexpected throw; never called for tool failures. */
  onInternalError?(error: TRPCError): void;
  /** Called once a query's or mutation's answer has been handed to `send`. */
  onAnswered?(path: string): void;
}

type Shape = ReturnType<typeof getTRPCErrorShape>;

/**
 * Serves procedures over any frame channel, speaking tRPC's WebSocket protocol,
 * with tRPC's error shapes and codes. Unlike the stock ws adapter it answers
 * each frame as soon as the procedure settles, with no per-tick batching, and
 * it accepts `subscription.stop` for queries and mutations too, which is how
 * callers cancel a running tool call.
 */
export class RpcServer {
  private readonly inflight = new Map<RequestId, AbortController>();
  private closed = false;

  constructor(private readonly options: RpcServerOptions) {}

  /** Handles one frame from the peer. Never throws: every problem is answered as an error frame. */
  receive(frame: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(frame);
    } catch (error) {
      this.fail(
        null,
        fault('PARSE_ERROR', 'malformed_frame', `frame is not JSON: ${(error as Error).message}`),
      );
      return;
    }
    // The envelope is checked by hand; zod, loaded for the first frame refused, words the refusal.
    // The input is validated once, by the procedure.
    if (isRequestFrame(raw)) this.handle(raw);
    else void this.refuseOrHandle(raw);
  }

  private async refuseOrHandle(raw: unknown): Promise<void> {
    const [{ RequestFrame }, { prettifyZodError }] = await Promise.all([
      import('../../shared/rpc-envelope.js'),
      import('../../shared/zod-errors.js'),
    ]);
    const parsed = RequestFrame.safeParse(raw);
    if (parsed.success) {
      this.handle(parsed.data);
      return;
    }
    this.fail(
      idOf(raw),
      fault('PARSE_ERROR', 'malformed_frame', `malformed request frame:\n${prettifyZodError(parsed.error)}`),
    );
  }

  private handle(message: RequestFrame): void {
    if (this.closed) return;
    if (message.method === 'subscription.stop') {
      this.inflight.get(message.id)?.abort();
      return;
    }
    if (this.inflight.has(message.id)) {
      this.fail(
        message.id,
        fault('CONFLICT', 'duplicate_request', `request id ${message.id} is already in flight`),
      );
      return;
    }
    let input: unknown;
    try {
      input =
        message.params.input === undefined
          ? undefined
          : transformer.deserialize(message.params.input as never);
    } catch (error) {
      this.fail(
        message.id,
        fault(
          'PARSE_ERROR',
          'malformed_frame',
          `input is not superjson-encoded: ${(error as Error).message}`,
        ),
        message,
      );
      return;
    }
    const controller = new AbortController();
    this.inflight.set(message.id, controller);
    void this.run(message, input, controller).finally(() => this.inflight.delete(message.id));
  }

  /** Answers a frame that was too large to read, naming the request when its id could be recovered. */
  oversized(bytes: number, limit: number, head: string): void {
    const id = /^\{"id":(\d+|"[^"]{1,128}")/.exec(head)?.[1];
    const requestId = id === undefined ? null : (JSON.parse(id) as RequestId);
    this.fail(
      requestId,
      fault(
        'PAYLOAD_TOO_LARGE',
        'frame_too_large',
        `frame of ${bytes} bytes exceeds the executor's limit of ${limit} bytes; send less per call`,
      ),
    );
  }

  /** Cancels everything in flight; later frames are ignored. */
  close(): void {
    this.closed = true;
    for (const controller of this.inflight.values()) controller.abort();
    this.inflight.clear();
  }

  private async run(message: ProcedureCall, input: unknown, controller: AbortController): Promise<void> {
    const { id, method: type, params } = message;
    try {
      const result = await this.call(type, params.path, input, controller.signal);
      if (type !== 'subscription') {
        this.send({ id, result: { type: 'data', data: transformer.serialize(result) } });
        this.options.onAnswered?.(params.path);
        return;
      }
      if (!isAsyncIterable(result)) {
        throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: `${params.path} is not a stream` });
      }
      this.send({ id, result: { type: 'started' } });
      await this.stream(id, result, controller.signal);
      this.send({ id, result: { type: 'stopped' } });
    } catch (cause) {
      if (controller.signal.aborted && type === 'subscription') {
        this.send({ id, result: { type: 'stopped' } });
        return;
      }
      this.fail(id, getTRPCErrorFromUnknown(cause), message, input);
    }
  }

  /** A procedure called as tRPC's `callProcedure` would, with its errors. */
  private async call(
    type: ProcedureCall['method'],
    path: string,
    input: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    const procedure = Object.hasOwn(this.options.procedures, path)
      ? this.options.procedures[path]
      : undefined;
    if (procedure?.type !== type) {
      throw new TRPCError({ code: 'NOT_FOUND', message: `No "${type}"-procedure on path "${path}"` });
    }
    let parsed: unknown;
    if (procedure.input) {
      try {
        parsed = await procedure.input(input);
      } catch (cause) {
        throw new TRPCError({ code: 'BAD_REQUEST', cause });
      }
    }
    return procedure.run(parsed, signal);
  }

  private async stream(id: RequestId, iterable: AsyncIterable<unknown>, signal: AbortSignal): Promise<void> {
    const iterator = iterable[Symbol.asyncIterator]();
    const aborted = new Promise<'aborted'>((resolve) => {
      if (signal.aborted) resolve('aborted');
      signal.addEventListener('abort', () => resolve('aborted'), { once: true });
    });
    try {
      for (;;) {
        const next = await Promise.race([iterator.next(), aborted]);
        if (next === 'aborted' || next.done) return;
        this.send({ id, result: { type: 'data', data: transformer.serialize(next.value) } });
      }
    } finally {
      // Let the generator run its `finally` blocks; do not wait for a stuck one.
      void iterator.return?.()?.catch(() => undefined);
    }
  }

  private fail(id: RequestId | null, error: TRPCError, message?: ProcedureCall, input?: unknown): void {
    const type = message?.method ?? 'unknown';
    const path = message?.params.path;
    if (error.code === 'INTERNAL_SERVER_ERROR') this.options.onInternalError?.(error);
    const shape: Shape = getTRPCErrorShape({
      config: trpc._config,
      error,
      type,
      path,
      input,
      ctx: undefined,
    });
    this.send({ id, error: transformer.serialize(shape) });
  }

  private send(frame: object): void {
    if (this.closed) return;
    this.options.send(JSON.stringify(frame));
  }
}

function fault(code: TRPCError['code'], skateCode: RpcFault['skateCode'], message: string): TRPCError {
  return new TRPCError({ code, message, cause: new RpcFault(skateCode, message) });
}

function idOf(raw: unknown): RequestId | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const id = (raw as { id?: unknown }).id;
  return (typeof id === 'number' && Number.isInteger(id) && id >= 0) ||
    (typeof id === 'string' && id.length > 0 && id.length <= 128)
    ? id
    : null;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
