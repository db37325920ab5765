import type { TokenUsage } from '../../shared/engine-events.js';
import type { SessionTotals } from './session-totals.js';

/** 950 → "950", 12_345 → "12.3k", 1_234_567 → "1.23M". */
export function formatTokens(tokens: number): string {
  if (tokens < 1_000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1_000).toFixed(tokens < 10_000 ? 2 : 1)}k`;
  return `${(tokens / 1_000_000).toFixed(2)}M`;
}

/** "in/out/cache" with cache reads and writes together, as the list shows them. */
export function formatTokenTriple(usage: TokenUsage): string {
  return [usage.inputTokens, usage.outputTokens, usage.cacheReadTokens + usage.cacheWriteTokens]
    .map(formatTokens)
    .join('/');
}

/** Every figure, for a transcript. */
export function formatUsage(usage: TokenUsage): string {
  return (
    `in ${formatTokens(usage.inputTokens)} out ${formatTokens(usage.outputTokens)} ` +
    `cache read ${formatTokens(usage.cacheReadTokens)} write ${formatTokens(usage.cacheWriteTokens)}`
  );
}

/** "$0.42"; "?" when no model used had a known price; a "+" when some tokens were left unpriced. */
export function formatCost(totals: Pick<SessionTotals, 'costUsd' | 'unpricedModels' | 'usage'>): string {
  const anyTokens = Object.values(totals.usage).some((count) => count > 0);
  if (totals.unpricedModels.length > 0 && totals.costUsd === 0 && anyTokens) return '?';
  const amount = totals.costUsd > 0 && totals.costUsd < 0.01 ? '<$0.01' : `$${totals.costUsd.toFixed(2)}`;
  return totals.unpricedModels.length > 0 ? `${amount}+` : amount;
}

/** "just now", "5m ago", "3h ago", "2d ago", or the date for anything older than a week. */
export function relativeTime(iso: string, now: Date): string {
  const seconds = Math.round((now.getTime() - Date.parse(iso)) / 1000);
  if (seconds < 60) return seconds < 10 ? 'just now' : `${seconds}s ago`;
  if (seconds < 3_600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3_600)}h ago`;
  if (seconds < 7 * 86_400) return `${Math.floor(seconds / 86_400)}d ago`;
  return iso.slice(0, 10);
}

/**
 * How many leading characters tell these ids apart, and at least `min`.
 * uuid v7 ids start with their millisecond, so 13 characters usually do.
 */
export function uniquePrefixLength(ids: readonly string[], min = 13): number {
  const sorted = [...ids].sort();
  let length = min;
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    let common = 0;
    while (common < a.length && a[common] === b[common]) common++;
    length = Math.max(length, common + 1);
  }
  return Math.min(length, 36);
}
