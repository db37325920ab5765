import { type FileHandle, mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { Message } from '../../shared/conversation.js';
import type { TokenUsage } from '../../shared/engine-events.js';
import {
  SESSION_FORMAT_VERSION,
  SessionEvent,
  type SessionHeader,
  type SessionPayload,
} from '../../shared/session-format.js';
import type { ConversationLog } from '../engine/engine-types.js';
import { ensureSkateDir } from '../skate-dir.js';
import { isSessionEvent } from './is-session-event.js';
import { SessionError } from './session-error.js';
import { lockSession } from './session-lock.js';
import { sessionFile, sessionsDir } from './session-paths.js';

/**
 * When the writer calls fdatasync. `batch` (the default): after every write,
 * where a write carries every line queued while the previous write and sync
 * were in flight (group commit), so an event is on disk one sync after it was
 * logged and a burst costs one sync. `close`: only when closing (tests, benches).
 */
export type SyncPolicy = 'batch' | 'close';

export interface SessionWriterOptions {
  /** Told of every failure; the writer itself never throws once created. Default: a process warning. */
  onError?: (error: SessionError) => void;
  sync?: SyncPolicy;
}

/** Appends one session's events to its file, in order, one line and one write per batch. */
export interface SessionWriter extends ConversationLog {
  readonly header: SessionHeader;
  readonly file: string;
  /** The event the next one will hang from; null before the first. */
  readonly lastEventId: string | null;
  readonly status: 'open' | 'failed' | 'closed';
  /** Queues an event after the last one; returns its id, or undefined if it was refused (see onError). */
  append(payload: SessionPayload): string | undefined;
  /** Resolves once every event queued so far is written (and synced, under the `batch` policy). Never rejects. */
  flush(): Promise<void>;
  /** Flushes, syncs and closes the file. Later events are refused. */
  close(): Promise<void>;
}

export interface NewSession {
  workspace: string;
  model: string;
  policy: string;
  /** Default: the workspace. */
  cwd?: string;
  parentSessionId?: string;
  forkedFrom?: { sessionId: string; eventId: string };
  /** Events copied verbatim after the header (a fork's path); the writer continues from the last. */
  initialEvents?: readonly SessionEvent[];
}

/**
 * Creates `<workspace>/.skate/sessions/<id>.jsonl` and writes its header (and
 * any initial events) durably before resolving. Rejects with a SessionError
 * when the file cannot be created; after that, failures go to `onError`.
 */
export async function createSessionWriter(
  init: NewSession,
  options: SessionWriterOptions = {},
): Promise<SessionWriter> {
  const header: SessionHeader = {
    type: 'session',
    version: SESSION_FORMAT_VERSION,
    id: uuidv7(),
    created: new Date().toISOString(),
    cwd: init.cwd ?? path.resolve(init.workspace),
    model: init.model,
    policy: init.policy,
    ...(init.parentSessionId ? { parentSessionId: init.parentSessionId } : {}),
    ...(init.forkedFrom ? { forkedFrom: init.forkedFrom } : {}),
  };
  const dir = sessionsDir(init.workspace);
  const file = sessionFile(init.workspace, header.id);
  let handle: FileHandle;
  let unlock: (() => Promise<void>) | undefined;
  try {
    // .skate gets its .gitignore when made; sessions are private: they hold whatever the model read.
    await ensureSkateDir(init.workspace);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // Held like a resumed session's, so nothing deletes or continues the file while this process writes it.
    unlock = await lockSession(file);
    handle = await open(file, 'a', 0o600);
  } catch (error) {
    await unlock?.();
    throw SessionError.fromUnknown(error, file);
  }
  const events = init.initialEvents ?? [];
  const writer = new QueuedSessionWriter(
    file,
    handle,
    header,
    0,
    continuation(header, events),
    options,
    unlock,
  );
  writer.enqueue(
    `${JSON.stringify(header)}\n${events.map((event) => `${JSON.stringify(event)}\n`).join('')}`,
  );
  await writer.flush();
  if (writer.status === 'failed') {
    await writer.close();
    throw new SessionError('io', `${file}: could not write the session header`, file);
  }
  await syncDirectory(dir);
  return writer;
}

/**
 * Opens an existing session file to append after `events` (its loaded events,
 * whose file must end with a complete line: truncate a torn one first).
 * `release` (the session's lock) runs once the writer has closed the file.
 */
export async function reopenSessionWriter(
  file: string,
  header: SessionHeader,
  events: readonly SessionEvent[],
  options: SessionWriterOptions = {},
  release?: () => Promise<void>,
): Promise<SessionWriter> {
  try {
    const handle = await open(file, 'a', 0o600);
    const { size } = await handle.stat();
    return new QueuedSessionWriter(
      file,
      handle,
      header,
      size,
      continuation(header, events),
      options,
      release,
    );
  } catch (error) {
    throw SessionError.fromUnknown(error, file);
  }
}

interface Continuation {
  lastEventId: string | null;
  model: string;
}

/** Where a writer picks up after `events`: their last id and the model in use. */
function continuation(header: SessionHeader, events: readonly SessionEvent[]): Continuation {
  const state: Continuation = { lastEventId: events.at(-1)?.id ?? null, model: header.model };
  for (const { payload } of events) {
    if (payload.type === 'model_change') state.model = payload.to;
    else if (payload.type === 'assistant_message') state.model = payload.model;
  }
  return state;
}

async function syncDirectory(dir: string): Promise<void> {
  // So the new file's name survives a power cut, not only its contents. Best effort.
  const handle = await open(dir, 'r').catch(() => undefined);
  await handle?.sync().catch(() => {});
  await handle?.close().catch(() => {});
}

class QueuedSessionWriter implements SessionWriter {
  status: 'open' | 'failed' | 'closed' = 'open';
  lastEventId: string | null;
  private model: string;
  private readonly onError: (error: SessionError) => void;
  private readonly sync: SyncPolicy;
  private pending: string[] = [];
  private queued = 0;
  private done = 0;
  private waiters: { upTo: number; resolve: () => void }[] = [];
  private draining = false;
  private dropped = 0;
  private closing: Promise<void> | undefined;

  constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    readonly header: SessionHeader,
    /** Bytes known to be complete lines, to cut a half-written batch back to. */
    private size: number,
    state: Continuation,
    options: SessionWriterOptions,
    /** The session's lock, released once the file is closed. */
    private readonly release?: () => Promise<void>,
  ) {
    this.lastEventId = state.lastEventId;
    this.model = state.model;
    this.onError = options.onError ?? ((error) => process.emitWarning(error.message, 'SkateSessionWarning'));
    this.sync = options.sync ?? 'batch';
  }

  userMessage(message: Message): void {
    this.append({ type: 'user_message', message: { role: 'user', content: message.content } });
  }

  assistantMessage(message: Message, usage: TokenUsage, model: string): void {
    if (model !== this.model) this.append({ type: 'model_change', from: this.model, to: model });
    this.model = model;
    // Whole, tool_use blocks included: the calls are read back from the message (see session-tool-calls.ts).
    this.append({
      type: 'assistant_message',
      message: { role: 'assistant', content: message.content },
      usage,
      model,
    });
  }

  toolResults(message: Message): void {
    // One event for the whole message: its tool_result blocks and any user text sent with them.
    this.append({ type: 'user_message', message: { role: 'user', content: message.content } });
  }

  compaction(summary: string, replacedMessages: number, usage?: TokenUsage, model?: string): void {
    this.append({
      type: 'compaction',
      summary,
      replacedMessages,
      ...(usage && { usage }),
      ...(model && { model }),
    });
  }

  append(payload: SessionPayload): string | undefined {
    if (this.status !== 'open' || this.closing) {
      this.refuse(payload.type);
      return undefined;
    }
    const event: SessionEvent = {
      id: uuidv7(),
      parentId: this.lastEventId,
      timestamp: new Date().toISOString(),
      payload,
    };
    let line: string;
    try {
      // A line the reader would refuse would make the whole session unreadable: refuse it here instead.
      if (!isSessionEvent(event)) SessionEvent.parse(event);
      line = `${JSON.stringify(event)}\n`;
    } catch (error) {
      this.onError(
        new SessionError(
          'invalid_event',
          `${this.file}: ${payload.type} event not recorded: ${reason(error)}`,
          this.file,
        ),
      );
      return undefined;
    }
    this.lastEventId = event.id;
    this.enqueue(line);
    return event.id;
  }

  /** Queues text that is one or more whole lines. */
  enqueue(lines: string): void {
    this.pending.push(lines);
    this.queued++;
    if (!this.draining) void this.drain();
  }

  flush(): Promise<void> {
    if (this.done >= this.queued || this.status === 'failed') return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ upTo: this.queued, resolve }));
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.flush();
      if (this.status === 'open' && this.sync === 'close') {
        await this.handle.datasync().catch((error: unknown) => this.fail(error));
      }
      await this.handle.close().catch(() => {});
      if (this.status === 'open') this.status = 'closed';
      await this.release?.();
    })();
    return this.closing;
  }

  /** Writes everything queued, batch after batch, until the queue is empty. Never throws. */
  private async drain(): Promise<void> {
    this.draining = true;
    while (this.pending.length > 0 && this.status === 'open') {
      const batch = Buffer.from(this.pending.join(''));
      const upTo = this.queued;
      this.pending = [];
      try {
        let offset = 0;
        // One write per batch; the loop only matters for a short write (a nearly full disk).
        while (offset < batch.length) {
          offset += (await this.handle.write(batch, offset, batch.length - offset)).bytesWritten;
        }
        if (this.sync === 'batch') await this.handle.datasync();
        this.size += batch.length;
        this.settle(upTo);
      } catch (error) {
        await this.fail(error);
      }
    }
    this.draining = false;
  }

  private settle(upTo: number): void {
    this.done = upTo;
    const ready = this.waiters.filter((waiter) => waiter.upTo <= upTo);
    this.waiters = this.waiters.filter((waiter) => waiter.upTo > upTo);
    for (const waiter of ready) waiter.resolve();
  }

  /** Stops the writer after a failed write or sync: cuts any half-written line so the file still loads. */
  private async fail(error: unknown): Promise<void> {
    if (this.status !== 'open') return;
    this.status = 'failed';
    const lost = this.pending.length;
    this.pending = [];
    await this.handle.truncate(this.size).catch(() => {});
    this.onError(
      new SessionError(
        'io',
        `${this.file}: session log stopped: ${reason(error)} (the last events were not recorded${lost > 0 ? `, ${lost} more queued` : ''})`,
        this.file,
        undefined,
        { cause: error },
      ),
    );
    this.settle(this.queued);
  }

  private refuse(type: string): void {
    // Once is enough: a stopped log would otherwise report every event of the run.
    if (this.dropped++ > 0) return;
    this.onError(
      new SessionError(
        'closed',
        `${this.file}: ${type} event not recorded: the session log is ${this.status === 'failed' ? 'stopped after a write error' : 'closed'}`,
        this.file,
      ),
    );
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
