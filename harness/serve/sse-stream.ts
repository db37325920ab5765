import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { RunBuffer, StreamEntry } from './run-buffer.js';
import { ServeError } from './serve-error.js';

/** A comment line every so often, so proxies and clients keep a quiet stream open. */
const HEARTBEAT_MS = 15_000;

/** One SSE message: the stream message's `type` as the event name, its JSON as data. */
export function sseMessage(entry: StreamEntry): string {
  return `id: ${entry.id}\nevent: ${entry.message.type}\ndata: ${JSON.stringify(entry.message)}\n\n`;
}

/**
 * Streams `run` from after `afterId` as `text/event-stream` until the run
 * ends (or the client goes away: the run goes on, and the client may come
 * back with `Last-Event-ID`). Whatever is buffered goes out in one write;
 * a slow client is waited for (`drain`), never copied.
 */
export async function streamRun(
  response: ServerResponse,
  run: RunBuffer,
  afterId: number,
  extraHeaders: Record<string, string> = {},
): Promise<void> {
  const first = run.read(afterId);
  if (first.gone) {
    throw new ServeError(
      'replay_gone',
      `events after ${afterId} are no longer kept (the run's buffer holds its last messages only)`,
    );
  }
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...extraHeaders,
  });
  response.flushHeaders();
  let closed = false;
  const whenClosed = new Promise<void>((resolve) =>
    response.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  let cursor = afterId;
  try {
    while (!closed) {
      const read = run.read(cursor);
      // The client fell behind the buffer: end here; a reconnect says what is gone.
      if (read.gone) break;
      if (read.entries.length > 0) {
        cursor = read.entries.at(-1)!.id;
        const ok = response.write(read.entries.map(sseMessage).join(''));
        if (!ok && !closed) await Promise.race([once(response, 'drain'), whenClosed]);
        continue;
      }
      if (read.ended) break;
      // Nothing was awaited since the read: no message can slip in before this wait.
      await Promise.race([run.changed(), whenClosed]);
    }
  } finally {
    clearInterval(heartbeat);
    if (!closed) response.end();
  }
}
