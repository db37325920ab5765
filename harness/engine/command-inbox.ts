import type { EngineCommand } from '../../shared/engine-events.js';
import type { CommandInbox } from './engine-types.js';

/** Commands that answer an engine request carry its `requestId`. */
type Answer = Extract<EngineCommand, { requestId: string }>;

export interface CommandInboxHandle {
  /** Give this to the engine (`EngineContext.inbox`). */
  inbox: CommandInbox;
  /**
   * Delivers a frontend command. Returns true when it answered a waiting
   * request or was kept for one that has not started waiting yet; false for
   * commands the inbox does not route (`user_prompt`, `interrupt`) and for an
   * answer whose type does not match what its request waits for.
   *
   * Interrupts do not go through the inbox: the caller owns the run's
   * AbortController and aborts it on `interrupt`, which reaches the model
   * stream, every tool call and every `waitFor` at once.
   */
  send(command: EngineCommand): boolean;
  /** Requests waiting for an answer (for tests and diagnostics). */
  readonly waiting: number;
}

export interface CommandInboxOptions {
  /** How long an answer that came before its request is kept. Default 30 s. */
  keepEarlyMs?: number;
  /** At most this many early answers are kept; the oldest goes first. Default 64. */
  maxEarly?: number;
}

interface Waiter {
  type: Answer['type'];
  resolve(command: Answer): void;
}

/**
 * Routes answers (approval, ask-user, loop-cap decisions) to the engine
 * request waiting for them, by `requestId`. A frontend may answer before the
 * engine starts waiting (a fast client, a replayed script), so early answers
 * are kept for a while rather than lost.
 */
export function createCommandInbox(options: CommandInboxOptions = {}): CommandInboxHandle {
  const keepEarlyMs = options.keepEarlyMs ?? 30_000;
  const maxEarly = options.maxEarly ?? 64;
  const waiters = new Map<string, Waiter>();
  const early = new Map<string, { command: Answer; timer: NodeJS.Timeout }>();

  const inbox: CommandInbox = {
    waitFor(type, requestId, signal) {
      type Result = Extract<EngineCommand, { type: typeof type }>;
      return new Promise<Result>((resolve, reject) => {
        if (signal.aborted) return reject(abortReason(signal));
        const kept = early.get(requestId);
        if (kept && kept.command.type === type) {
          early.delete(requestId);
          clearTimeout(kept.timer);
          return resolve(kept.command as Result);
        }
        if (waiters.has(requestId)) return reject(new Error(`something already waits for ${requestId}`));
        const onAbort = (): void => {
          waiters.delete(requestId);
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiters.set(requestId, {
          type: type as Answer['type'],
          resolve(command) {
            signal.removeEventListener('abort', onAbort);
            resolve(command as Result);
          },
        });
      });
    },
  };

  const send = (command: EngineCommand): boolean => {
    if (!('requestId' in command)) return false;
    const waiter = waiters.get(command.requestId);
    if (waiter) {
      if (waiter.type !== command.type) return false;
      waiters.delete(command.requestId);
      waiter.resolve(command);
      return true;
    }
    const previous = early.get(command.requestId);
    if (previous) clearTimeout(previous.timer);
    else if (early.size >= maxEarly) dropOldest();
    const timer = setTimeout(() => early.delete(command.requestId), keepEarlyMs);
    // A kept answer must not hold the process open.
    timer.unref();
    early.set(command.requestId, { command, timer });
    return true;
  };

  const dropOldest = (): void => {
    const oldest = early.keys().next();
    if (oldest.done) return;
    clearTimeout(early.get(oldest.value)?.timer);
    early.delete(oldest.value);
  };

  return {
    inbox,
    send,
    get waiting() {
      return waiters.size;
    },
  };
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}
