import type { Writable } from 'node:stream';
import type { EngineEvent } from '../../shared/engine-events.js';
import type { Emitter } from '../engine/engine-types.js';
import { jsonFor } from '../terminal/inert-text.js';

/**
 * stream-json output: one EngineEvent as JSON per line; on a terminal, with the characters
 * JSON.stringify leaves raw that it could act on (C1, DEL, bidi controls) as `\uXXXX` escapes
 * (`jsonFor`): the same values, and for a program the same bytes.
 */
export interface JsonLinesEmitter extends Emitter {
  /** Writes one line that is not an engine event (a whole message, the result), in order with the events. */
  line(value: unknown): void;
  /** Hands everything buffered to the stream; resolves once the stream took it, or at once if it is gone. */
  flush(): Promise<void>;
  /** Flushes, then lets go of the stream (its listeners), leaving it open: stdout outlives a run. */
  close(): Promise<void>;
  /** True once the stream failed (EPIPE, say) or closed: events are dropped from then on. */
  readonly closed: boolean;
}

export interface JsonLinesEmitterOptions {
  /** Buffered characters that trigger a write without waiting for the next turn of the event loop. Default 64K. */
  chunkChars?: number;
}

/** Past this, buffered lines are written even while the stream asks to wait: a string cannot grow forever. */
const MAX_PENDING_CHARS = 8 * 1024 * 1024;

/**
 * Writes events as JSON lines. Lines are batched into one write per event-loop
 * turn (or per `chunkChars`), because a write per text delta costs more than
 * the rest of the engine's work for it. Order is kept: a line is only ever
 * appended behind the lines before it. A stream that fails or closes turns
 * this into a no-op instead of an error, so a reader going away never stops a run.
 */
export function createJsonLinesEmitter(
  stream: Writable,
  options: JsonLinesEmitterOptions = {},
): JsonLinesEmitter {
  const chunkChars = options.chunkChars ?? 64 * 1024;
  let pending = '';
  let scheduled = false;
  /** The stream said write() false: wait for 'drain' before writing more (unless the buffer is huge). */
  let waitingForDrain = false;
  let closed = false;
  let lastWrite: Promise<void> = Promise.resolve();

  const stop = (): void => {
    closed = true;
    pending = '';
  };
  let resolveClosed!: () => void;
  const streamClosed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const onClose = (): void => {
    stop();
    resolveClosed();
  };
  stream.on('error', stop);
  stream.once('close', onClose);

  const write = (): void => {
    if (pending === '') return;
    if (closed || stream.destroyed || stream.writableEnded) {
      stop();
      return;
    }
    const chunk = pending;
    pending = '';
    try {
      let accepted = true;
      lastWrite = new Promise<void>((resolve) => {
        accepted = stream.write(chunk, () => resolve());
      });
      if (!accepted && !waitingForDrain) {
        waitingForDrain = true;
        stream.once('drain', onDrain);
      }
    } catch {
      stop();
    }
  };
  const onDrain = (): void => {
    waitingForDrain = false;
    write();
  };
  const onTick = (): void => {
    scheduled = false;
    if (!waitingForDrain) write();
  };

  const flush = (): Promise<void> => {
    write();
    if (closed) return Promise.resolve();
    // A destroyed stream may never call back; its 'close' ends the wait instead.
    return Promise.race([lastWrite, streamClosed]);
  };

  const line = (value: unknown): void => {
    if (closed) return;
    pending += `${jsonFor(stream as { isTTY?: boolean }, value)}\n`;
    if (pending.length >= chunkChars) {
      if (!waitingForDrain || pending.length >= MAX_PENDING_CHARS) write();
    } else if (!scheduled) {
      scheduled = true;
      setImmediate(onTick);
    }
  };

  return {
    emit(event: EngineEvent): void {
      line(event);
    },
    line,
    flush,
    async close(): Promise<void> {
      await flush();
      stop();
      stream.off('error', stop);
      stream.off('close', onClose);
      stream.off('drain', onDrain);
    },
    get closed() {
      return closed;
    },
  };
}
