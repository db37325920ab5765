import type { RunResult } from '../../shared/run-result.js';
import { estimateCostUsd } from '../provider/model-catalog.js';
import type { AgentRunResult } from './agent-session.js';

/**
 * How a run ended, as frontends report it: stream-json's last line,
 * `--output-format json`, the HTTP API's `result` event. `durationMs` is the
 * frontend's own measure (a headless run counts from process start).
 */
export function runResultOf(outcome: AgentRunResult, durationMs: number): RunResult {
  const cost = estimateCostUsd(outcome.model, outcome.usage);
  return {
    type: 'result',
    status: outcome.status,
    finalMessage: outcome.finalMessage,
    turns: outcome.turns,
    toolCalls: outcome.toolCalls,
    usage: outcome.usage,
    ...(cost !== undefined && { costUsd: Math.round(cost * 1e6) / 1e6 }),
    model: outcome.model,
    ...(outcome.sessionId && { sessionId: outcome.sessionId }),
    durationMs: Math.round(durationMs),
    ...(outcome.error && { error: outcome.error }),
  };
}
