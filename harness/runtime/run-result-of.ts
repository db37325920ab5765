import { type DispatchRecord, summarizeDispatches } from '../../shared/dispatch-telemetry.js';
import type { TokenUsage } from '../../shared/engine-events.js';
import type { ResultSubtype, ResultUsage, RunResult } from '../../shared/run-result.js';
import { estimateCostUsd } from '../provider/model-catalog.js';
import type { AgentRunResult } from './agent-session.js';

/** The parts of a run's end that a result is made of (an `AgentRunResult`, or a run that never began). */
export type RunEnding = Pick<
  AgentRunResult,
  'status' | 'finalMessage' | 'turns' | 'toolCalls' | 'usage' | 'model' | 'sessionId' | 'error' | 'errorCode'
> & { structuredOutput?: unknown; dispatches?: readonly DispatchRecord[] | undefined };

/**
 * How a run ended, as frontends report it: stream-json's last line,
 * `--output-format json`, the HTTP API's `result` event. `durationMs` is the
 * frontend's own measure (a headless run counts from process start).
 */
export function runResultOf(outcome: RunEnding, durationMs: number): RunResult {
  const cost = estimateCostUsd(outcome.model, outcome.usage);
  const costUsd = cost === undefined ? undefined : Math.round(cost * 1e6) / 1e6;
  const subtype = resultSubtype(outcome);
  const duration = Math.round(durationMs);
  const dispatch = summarizeDispatches(outcome.dispatches ?? []);
  return {
    type: 'result',
    subtype,
    is_error: subtype !== 'success',
    result: outcome.finalMessage,
    ...(outcome.sessionId && { session_id: outcome.sessionId }),
    num_turns: outcome.turns,
    ...(costUsd !== undefined && { total_cost_usd: costUsd }),
    duration_ms: duration,
    ...(outcome.structuredOutput !== undefined && { structured_output: outcome.structuredOutput }),
    status: outcome.status,
    finalMessage: outcome.finalMessage,
    turns: outcome.turns,
    toolCalls: outcome.toolCalls,
    usage: resultUsage(outcome.usage),
    ...(costUsd !== undefined && { costUsd }),
    model: outcome.model,
    ...(outcome.sessionId && { sessionId: outcome.sessionId }),
    durationMs: duration,
    ...(outcome.error && { error: outcome.error }),
    ...(outcome.errorCode && { errorCode: outcome.errorCode }),
    ...(dispatch && { dispatch }),
  };
}

/** Claude Code's subtype for how a run ended. */
export function resultSubtype(outcome: Pick<RunEnding, 'status' | 'errorCode'>): ResultSubtype {
  if (outcome.status === 'complete') return 'success';
  if (outcome.status === 'loop_cap') return 'error_max_turns';
  if (outcome.errorCode === 'invalid_output') return 'error_max_structured_output_retries';
  return 'error_during_execution';
}

/** Skate's usage with the Messages API's names beside it (Claude Code's `usage`). */
export function resultUsage(usage: TokenUsage): ResultUsage {
  return {
    ...usage,
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
  };
}
