/**
 * Maps an async source with up to `concurrency` calls of `fn` in flight, yielding results in source
 * order so output stays deterministic. Stopping early (a `break` in the consumer) stops pulling from
 * the source and waits for the calls already started, so no file handle outlives the caller.
 */
export async function* mapOrdered<T, R>(
  source: AsyncIterable<T> | Iterable<T>,
  concurrency: number,
  fn: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const window: Promise<R>[] = [];
  try {
    for await (const item of source) {
      const pending = fn(item);
      // Rejections surface when the result is awaited in order; until then they are not "unhandled".
      pending.catch(() => undefined);
      window.push(pending);
      if (window.length >= concurrency) yield await window.shift()!;
    }
    while (window.length > 0) yield await window.shift()!;
  } finally {
    await Promise.allSettled(window);
  }
}
