import type { RunResult } from '../../shared/run-result.js';

const count = new Intl.NumberFormat('en-US');

/** The last line of `--output-format text`: what the run took, and how to pick it up again. */
export function runSummaryLine(result: RunResult): string {
  const { usage } = result;
  const cache = [
    ...(usage.cacheReadTokens > 0 ? [`${count.format(usage.cacheReadTokens)} cache read`] : []),
    ...(usage.cacheWriteTokens > 0 ? [`${count.format(usage.cacheWriteTokens)} cache write`] : []),
  ];
  const parts = [
    `${result.turns} turn${result.turns === 1 ? '' : 's'}`,
    `${result.toolCalls} tool call${result.toolCalls === 1 ? '' : 's'}`,
    `tokens ${count.format(usage.inputTokens)} in, ${count.format(usage.outputTokens)} out${cache.length > 0 ? `, ${cache.join(', ')}` : ''}`,
    ...(result.costUsd !== undefined ? [`~$${result.costUsd.toFixed(4)}`] : []),
    `${(result.durationMs / 1000).toFixed(1)} s`,
    result.sessionId
      ? `session ${result.sessionId} (skate --resume ${result.sessionId})`
      : 'no session recorded',
  ];
  return parts.join(' · ');
}
