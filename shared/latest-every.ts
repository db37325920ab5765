/** Delivers the latest of a stream of values at most once per interval; `stop` drops what is pending. */
export interface LatestEvery<T> {
  push(value: T): void;
  stop(): void;
}

/**
 * A flood of values (an MCP server's progress notifications) becomes at most one delivery per
 * `intervalMs`: the first at once, then the latest of each interval at its end, never a stale one.
 */
export function latestEvery<T>(intervalMs: number, deliver: (value: T) => void): LatestEvery<T> {
  let lastAt = Number.NEGATIVE_INFINITY;
  let pending: { value: T } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const send = (value: T): void => {
    lastAt = performance.now();
    deliver(value);
  };
  return {
    push(value) {
      if (stopped) return;
      const wait = lastAt + intervalMs - performance.now();
      if (wait <= 0 && timer === undefined) {
        send(value);
        return;
      }
      pending = { value };
      timer ??= setTimeout(
        () => {
          timer = undefined;
          const next = pending;
          pending = undefined;
          if (next && !stopped) send(next.value);
        },
        Math.max(1, wait),
      );
    },
    stop() {
      stopped = true;
      pending = undefined;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
