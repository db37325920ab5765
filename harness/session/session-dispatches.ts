import {
  DispatchRecord,
  type DispatchTelemetry,
  summarizeDispatches,
} from '../../shared/dispatch-telemetry.js';
import type { SessionEvent } from '../../shared/session-format.js';
import { sessionToolCalls } from './session-tool-calls.js';

/**
 * The dispatch telemetry of a session, read back from its logged spawn_agent results (each
 * carries its `dispatch` record as JSON: the whole output, or its last line for a failure).
 * Undefined when the session dispatched nothing.
 */
export function sessionDispatches(events: readonly SessionEvent[]): DispatchTelemetry | undefined {
  const records: DispatchRecord[] = [];
  for (const call of sessionToolCalls(events)) {
    if (call.name !== 'spawn_agent' || !call.result) continue;
    const record = recordIn(call.result.output);
    if (record) records.push(record);
  }
  return summarizeDispatches(records);
}

function recordIn(output: string): DispatchRecord | undefined {
  for (const text of [output, output.slice(output.lastIndexOf('\n') + 1)]) {
    try {
      const parsed = DispatchRecord.safeParse((JSON.parse(text) as { dispatch?: unknown }).dispatch);
      if (parsed.success) return parsed.data;
    } catch {
      // Not this shape: try the next.
    }
  }
  return undefined;
}

/** One line for `skate sessions show`: what the session's sub-agents cost and how they ended. */
export function formatDispatches(telemetry: DispatchTelemetry): string {
  const failures = Object.entries(telemetry.failures)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ');
  return [
    `dispatches: ${telemetry.dispatches}`,
    `${telemetry.tokens_per_dispatch} tokens per dispatch`,
    `${telemetry.invalid_schema_retries} invalid-schema retries`,
    `${telemetry.approval_loops} approval loops`,
    `cache read ${telemetry.cache_read_tokens} / write ${telemetry.cache_write_tokens} (hit rate ${Math.round(telemetry.cache_hit_rate * 100)}%)`,
    `wall ${(telemetry.wall_ms / 1000).toFixed(1)} s`,
    `failures: ${failures || 'none'}`,
  ].join(' · ');
}
