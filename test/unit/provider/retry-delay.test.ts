import { describe, expect, it } from 'vitest';
import { retryAfterMs, retryDelayMs } from '../../../harness/provider/retry-delay.js';

describe('retryDelayMs', () => {
  const backoff = { baseMs: 500, capMs: 30_000 };

  it('doubles per retry with jitter, up to the cap', () => {
    expect(retryDelayMs(1, backoff, undefined, () => 0)).toBe(250);
    expect(retryDelayMs(1, backoff, undefined, () => 1)).toBe(500);
    expect(retryDelayMs(3, backoff, undefined, () => 1)).toBe(2000);
    expect(retryDelayMs(10, backoff, undefined, () => 1)).toBe(30_000);
    for (let retry = 1; retry <= 12; retry++) {
      const delay = retryDelayMs(retry, backoff);
      expect(delay).toBeGreaterThanOrEqual(Math.min(30_000, 500 * 2 ** (retry - 1)) / 2);
      expect(delay).toBeLessThanOrEqual(30_000);
    }
  });

  it('uses what the server asked for instead', () => {
    expect(retryDelayMs(1, backoff, 1000)).toBe(1000);
    expect(retryDelayMs(5, backoff, 0)).toBe(0);
  });
});

describe('retryAfterMs', () => {
  it('reads retry-after-ms first, then retry-after in seconds or as a date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(1500);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }))).toBe(500);
    const inFiveSeconds = new Date(Date.now() + 5000).toUTCString();
    const fromDate = retryAfterMs(new Headers({ 'retry-after': inFiveSeconds }));
    expect(fromDate).toBeGreaterThan(3000);
    expect(fromDate).toBeLessThanOrEqual(5000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 1970 00:00:00 GMT' }))).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after-ms': 'x', 'retry-after': '3' }))).toBe(3000);
  });
});
