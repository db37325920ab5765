/** The q-quantile of a sample (0 ≤ q ≤ 1), by nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** Rounds for printing: three significant decimals are more than a noisy machine can tell. */
export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Microseconds elapsed since `start` (from `process.hrtime.bigint()`). */
export function microsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1_000;
}
