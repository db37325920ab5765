import type { ConversationLog } from './engine-types.js';

/** A conversation log that never throws or rejects; it counts failed calls instead. */
export interface GuardedLog extends ConversationLog {
  readonly failures: number;
}

/**
 * Wraps a session log so that a full disk or a slow store never stops a run.
 * Methods are typed `void`, but an implementation may still return a promise:
 * its rejection is caught too, so it cannot surface as an unhandled rejection.
 */
export function guardLog(log: ConversationLog | undefined): GuardedLog {
  let failures = 0;
  const fail = (): void => {
    failures++;
  };
  const call = (run: () => unknown): void => {
    if (!log) return;
    try {
      const result = run();
      if (isThenable(result)) result.then(undefined, fail);
    } catch {
      fail();
    }
  };
  return {
    userMessage: (message) => call(() => log?.userMessage(message)),
    assistantMessage: (message, usage, model) => call(() => log?.assistantMessage(message, usage, model)),
    toolResults: (message) => call(() => log?.toolResults(message)),
    compaction: (summary, replaced, usage, model) =>
      call(() => log?.compaction(summary, replaced, usage, model)),
    get failures() {
      return failures;
    },
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}
