import type { Readable, Writable } from 'node:stream';
import type WebSocket from 'ws';
import { LineSplitter } from '../../shared/line-splitter.js';

/** A bidirectional channel of text frames between a harness and one executor. */
export interface FrameChannel {
  send(frame: string): void;
  close(): void;
}

export interface FrameHandlers {
  frame(text: string): void;
  /** Called once, when the channel can carry nothing more. */
  closed(reason: string): void;
  /** A frame over the size limit arrived and was skipped. */
  oversized?(bytes: number): void;
}

/** Newline-delimited frames over a child's stdin/stdout (both socketpairs private to the two processes). */
export function stdioChannel(
  input: Readable,
  output: Writable,
  maxFrameBytes: number,
  handlers: FrameHandlers,
): FrameChannel {
  let open = true;
  const splitter = new LineSplitter(maxFrameBytes, handlers.frame, (bytes) => handlers.oversized?.(bytes));
  const finish = (reason: string) => {
    if (!open) return;
    open = false;
    handlers.closed(reason);
  };
  input.on('data', (chunk: Buffer) => splitter.push(chunk));
  input.on('end', () => finish('executor closed its end of the channel'));
  input.on('error', (error) => finish(`channel read failed: ${error.message}`));
  output.on('error', (error) => finish(`channel write failed: ${error.message}`));
  return {
    send(frame) {
      if (open) output.write(`${frame}\n`);
    },
    close() {
      output.end();
      finish('closed by the harness');
    },
  };
}

/** Frames as WebSocket text messages, for executors on other hosts or in containers. */
export function webSocketChannel(socket: WebSocket, handlers: FrameHandlers): FrameChannel {
  let open = true;
  const finish = (reason: string) => {
    if (!open) return;
    open = false;
    handlers.closed(reason);
  };
  socket.on('message', (data, isBinary) => {
    if (isBinary) return;
    handlers.frame(Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString());
  });
  socket.on('close', (code, reason) =>
    finish(`connection closed (${code}${reason.length ? `: ${reason}` : ''})`),
  );
  socket.on('error', (error) => finish(`connection failed: ${error.message}`));
  return {
    send(frame) {
      if (open && socket.readyState === socket.OPEN) socket.send(frame);
    },
    close() {
      socket.close();
      finish('closed by the harness');
    },
  };
}
