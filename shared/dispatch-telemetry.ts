import * as z from 'zod';

/**
 * Why a dispatch (one sub-agent run) ended without a usable result, one name for every surface
 * (the tool result, stream-json, ACP, serve, the session): `timeout` (its wall-clock budget),
 * `schema_invalid` (no valid result: invalid after its repair turn, or none after its reminder),
 * `budget_exceeded` (its token budget), `turn_cap`, `cancelled` (its parent was), `policy` (what
 * it asked for could not be granted, or a definition without consent), `executor` (its executor
 * or its model run failed), `review_blocked` (a reviewer's verdict that blocks: status blocked,
 * or a critical issue; the result is still delivered).
 */
export const DispatchFailure = z.enum([
  'timeout',
  'schema_invalid',
  'budget_exceeded',
  'turn_cap',
  'cancelled',
  'policy',
  'executor',
  'review_blocked',
]);
export type DispatchFailure = z.infer<typeof DispatchFailure>;

const Count = z.number().int().nonnegative();

/** One dispatch's figures, as its parent's tool result and the `dispatch_end` event carry them. */
export const DispatchRecord = z.object({
  agent_id: z.string(),
  /** The agent definition it ran, when `spawn_agent` named one. */
  agent_name: z.string().optional(),
  status: z.enum(['completed', 'failed']),
  failure: DispatchFailure.optional(),
  turns: Count,
  tool_calls: Count,
  input_tokens: Count,
  output_tokens: Count,
  cache_read_tokens: Count,
  cache_write_tokens: Count,
  /** Input (cached or not) plus output: what a budget's `total` counts. */
  tokens: Count,
  /** Invalid `complete_task` calls it made (each sent back once for repair). */
  invalid_schema_retries: Count,
  /** Tool calls refused to it (policy, rules, hooks) that it then had to work round. */
  approval_loops: Count,
  wall_ms: Count,
  /** SHA-256 of the stable start of its system prompt, shared by dispatches with the same context and contract. */
  prefix_sha256: z.string(),
});
export type DispatchRecord = z.infer<typeof DispatchRecord>;

/** The dispatches of a run or a session, summed. */
export const DispatchTelemetry = z.object({
  dispatches: Count,
  /** Mean tokens (input + output) per dispatch. */
  tokens_per_dispatch: z.number().nonnegative(),
  invalid_schema_retries: Count,
  approval_loops: Count,
  cache_read_tokens: Count,
  cache_write_tokens: Count,
  /** Cached input read over all input the children sent (0 when none). */
  cache_hit_rate: z.number().min(0).max(1),
  wall_ms: Count,
  failures: z.partialRecord(DispatchFailure, Count),
  /** The distinct dispatch prefixes: one hash means every child could share the cache. */
  prefix_hashes: z.array(z.string()),
  children: z.array(DispatchRecord),
});
export type DispatchTelemetry = z.infer<typeof DispatchTelemetry>;

/** The telemetry of these dispatches; undefined for none. */
export function summarizeDispatches(records: readonly DispatchRecord[]): DispatchTelemetry | undefined {
  if (records.length === 0) return undefined;
  const sum = (pick: (record: DispatchRecord) => number): number =>
    records.reduce((total, record) => total + pick(record), 0);
  const failures: Partial<Record<DispatchFailure, number>> = {};
  for (const record of records)
    if (record.failure) failures[record.failure] = (failures[record.failure] ?? 0) + 1;
  const cacheRead = sum((r) => r.cache_read_tokens);
  const allInput = sum((r) => r.input_tokens + r.cache_read_tokens + r.cache_write_tokens);
  return {
    dispatches: records.length,
    tokens_per_dispatch: Math.round(sum((r) => r.tokens) / records.length),
    invalid_schema_retries: sum((r) => r.invalid_schema_retries),
    approval_loops: sum((r) => r.approval_loops),
    cache_read_tokens: cacheRead,
    cache_write_tokens: sum((r) => r.cache_write_tokens),
    cache_hit_rate: allInput > 0 ? Math.round((cacheRead / allInput) * 1000) / 1000 : 0,
    wall_ms: sum((r) => r.wall_ms),
    failures,
    prefix_hashes: [...new Set(records.map((r) => r.prefix_sha256))],
    children: [...records],
  };
}
