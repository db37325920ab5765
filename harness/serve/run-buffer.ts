import type { StreamMessage } from '../../shared/serve-api.js';

/** One message of a run's stream with its SSE id. */
export interface StreamEntry {
  id: number;
  message: StreamMessage;
}

/** What a reader gets after an id: the entries retained since, or `gone` when some were dropped. */
export type ReadResult = { gone: false; entries: StreamEntry[]; ended: boolean } | { gone: true };

/**
 * The messages of one run, numbered from the session's counter, kept up to
 * `limit` (the oldest dropped first) so a client that lost its connection can
 * come back with `Last-Event-ID` and get what it missed. Readers are cursors
 * over this one buffer: a slow client holds no copy of its own.
 */
export class RunBuffer {
  private entries: StreamEntry[] = [];
  /** The id the run's first message got (dropped or not). */
  readonly firstId: number;
  private nextId: number;
  private ended = false;
  private waiters: (() => void)[] = [];

  constructor(
    readonly runId: string,
    firstId: number,
    private readonly limit: number,
  ) {
    this.firstId = firstId;
    this.nextId = firstId;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The id of the last message pushed; `firstId - 1` before any. */
  get lastId(): number {
    return this.nextId - 1;
  }

  push(message: StreamMessage): StreamEntry {
    if (this.ended) throw new Error(`run ${this.runId} has ended`);
    const entry = { id: this.nextId++, message };
    this.entries.push(entry);
    // Dropping in batches keeps the shift cost off every push.
    if (this.entries.length > this.limit * 1.25) this.entries = this.entries.slice(-this.limit);
    this.wake();
    return entry;
  }

  /** No more messages will come. */
  end(): void {
    this.ended = true;
    this.wake();
  }

  /** Every retained message after `afterId` (ids below `firstId` mean "from the start"). */
  read(afterId: number): ReadResult {
    const from = Math.max(afterId, this.firstId - 1) + 1;
    const oldest = this.entries[0]?.id ?? this.nextId;
    if (from < oldest) return { gone: true };
    return { gone: false, entries: this.entries.slice(from - oldest), ended: this.ended };
  }

  /** Resolves at the next push or at the end (at once if ended). */
  changed(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
