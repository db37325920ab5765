import type { RunResult } from '../../shared/run-result.js';

/**
 * A count with thousands separators (12,345), as `Intl.NumberFormat('en-US')` writes it; that
 * one's first construction loads ICU's locale data, ~20 ms of CPU on the way to a first request.
 */
export function groupThousands(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The last line of `--output-format text`: what the run took, and how to pick it up again. */
export function runSummaryLine(result: RunResult): string {
  const { usage } = result;
  const cache = [
    ...(usage.cacheReadTokens > 0 ? [`${groupThousands(usage.cacheReadTokens)} cache read`] : []),
    ...(usage.cacheWriteTokens > 0 ? [`${groupThousands(usage.cacheWriteTokens)} cache write`] : []),
  ];
  const parts = [
    `${result.turns} turn${result.turns === 1 ? '' : 's'}`,
    `${result.toolCalls} tool call${result.toolCalls === 1 ? '' : 's'}`,
    `tokens ${groupThousands(usage.inputTokens)} in, ${groupThousands(usage.outputTokens)} out${cache.length > 0 ? `, ${cache.join(', ')}` : ''}`,
    ...(result.costUsd !== undefined ? [`~$${result.costUsd.toFixed(4)}`] : []),
    `${(result.durationMs / 1000).toFixed(1)} s`,
    result.sessionId
      ? `session ${result.sessionId} (skate --resume ${result.sessionId})`
      : 'no session recorded',
  ];
  return parts.join(' · ');
}
