import { setMaxListeners } from 'node:events';

/** Each signal's waiting callbacks: one listener per signal, however many calls share it. */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `callback` when `signal` aborts (at once if it has), until the returned function is
 * called. A run shares one signal among all its tool calls: adding and removing a listener per
 * call cost ~15 µs of the harness's time per MCP call (Node's EventTarget checks its options and
 * walks its listener list each time), while a Set entry costs next to nothing. The one listener
 * stays on the signal, holding only the calls still waiting.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) {
    callback();
    return () => undefined;
  }
  let callbacks = waiting.get(signal);
  if (!callbacks) {
    const own = new Set<() => void>();
    callbacks = own;
    waiting.set(signal, own);
    // As before this helper: a run's signal is shared by everything its concurrent calls start
    // (hooks, sub-agents), and their many listeners are not the leak Node's limit of 10 is for.
    setMaxListeners(0, signal);
    signal.addEventListener(
      'abort',
      () => {
        waiting.delete(signal);
        for (const waiter of [...own]) waiter();
        own.clear();
      },
      { once: true },
    );
  }
  const set = callbacks;
  set.add(callback);
  return () => {
    set.delete(callback);
  };
}
