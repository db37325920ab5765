import type { OutputLine } from '../shared/tool.js';

/** Lines kept for a call nobody watches yet; later lines are dropped, counted and reported. */
const MAX_BUFFERED_LINES = 10_000;
/** How long a finished call's lines wait for a subscriber that is on its way. */
const LINGER_MS = 30_000;

class CallStream {
  lines: OutputLine[] = [];
  dropped = 0;
  done = false;
  watched = false;
  wake: (() => void) | undefined;
  lingerTimer: NodeJS.Timeout | undefined;

  push(line: OutputLine): void {
    // Progress is a state, not a log: an unread progress line is replaced by the next one, so a
    // subscriber that comes late (the harness watches a call only once it runs long) gets the latest.
    if (line.stream === 'progress' && this.lines.at(-1)?.stream === 'progress') {
      this.lines[this.lines.length - 1] = line;
      this.wake?.();
      return;
    }
    if (this.lines.length >= MAX_BUFFERED_LINES) {
      this.dropped++;
      return;
    }
    this.lines.push(line);
    this.wake?.();
  }
}

/**
 * Per-call output streams. A subscription may arrive just before or just after
 * its call starts (or even after it ended), so lines are buffered until taken.
 */
export class OutputHub {
  private readonly streams = new Map<string, CallStream>();

  private stream(callId: string): CallStream {
    let stream = this.streams.get(callId);
    if (!stream) {
      stream = new CallStream();
      this.streams.set(callId, stream);
    }
    return stream;
  }

  /** Starts a call's stream; returns the function tools use to emit lines. */
  open(callId: string): (stream: OutputLine['stream'], text: string) => void {
    let target: CallStream | undefined;
    return (stream, text) => {
      target ??= this.stream(callId);
      if (!target.done) target.push({ callId, stream, text });
    };
  }

  /** Ends a call's stream; subscribers drain what is left and finish. */
  close(callId: string): void {
    const stream = this.streams.get(callId);
    if (!stream) return;
    stream.done = true;
    stream.wake?.();
    if (!stream.watched) {
      stream.lingerTimer = setTimeout(() => this.streams.delete(callId), LINGER_MS);
      stream.lingerTimer.unref();
    }
  }

  /** Lines of one call, from its first, until the call ends or `signal` aborts. */
  async *subscribe(callId: string, signal: AbortSignal | undefined): AsyncGenerator<OutputLine> {
    const stream = this.stream(callId);
    stream.watched = true;
    clearTimeout(stream.lingerTimer);
    const onAbort = () => stream.wake?.();
    signal?.addEventListener('abort', onAbort);
    try {
      while (!signal?.aborted) {
        if (stream.lines.length > 0) {
          const batch = stream.lines;
          stream.lines = [];
          yield* batch;
          continue;
        }
        if (stream.done) {
          if (stream.dropped > 0) {
            yield { callId, stream: 'progress', text: `[${stream.dropped} output lines dropped]` };
          }
          return;
        }
        await new Promise<void>((resolve) => {
          stream.wake = resolve;
        });
        stream.wake = undefined;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.streams.delete(callId);
    }
  }
}
