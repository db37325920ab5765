/** Exponential backoff: `baseMs` doubled per retry, never above `capMs`. */
export interface Backoff {
  baseMs: number;
  capMs: number;
}

/**
 * How long to wait before retry number `retry` (1 for the first): the
 * server's own figure when it gave one, else exponential backoff with "equal
 * jitter" (half fixed, half random) so that many clients do not retry in step.
 * https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
 */
export function retryDelayMs(
  retry: number,
  backoff: Backoff,
  serverAskedMs?: number,
  random: () => number = Math.random,
): number {
  if (serverAskedMs !== undefined) return Math.ceil(serverAskedMs);
  const ceiling = Math.min(backoff.capMs, backoff.baseMs * 2 ** (retry - 1));
  return Math.round(ceiling * (0.5 + random() * 0.5));
}

/**
 * The wait the server asked for: `retry-after-ms` (milliseconds, sent by the
 * Anthropic API), else `retry-after` in seconds or as an HTTP date.
 * https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Retry-After
 */
export function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms')?.trim() || Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
