import * as z from 'zod';
import { DispatchTelemetry } from './dispatch-telemetry.js';
import { TokenUsage } from './engine-events.js';
import { NetworkSetting } from './policy.js';

/**
 * A run's token usage as both Skate and Claude Code name it: Skate's camelCase fields, and the
 * Messages API's snake_case ones that Claude Code's `usage` carries (so `jq .usage.input_tokens`
 * written for Claude Code works unchanged). Same numbers, two names.
 */
export const ResultUsage = TokenUsage.extend({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
});
export type ResultUsage = z.infer<typeof ResultUsage>;

/**
 * Claude Code's `subtype` of a result: how the run ended, in its words. `success` only for a
 * completed run; a turn cap is `error_max_turns`; an answer that failed `--output-schema` after
 * its repair turn is `error_max_structured_output_retries`; anything else that stopped the run
 * short (an API error, an interrupt, a repetition stop) is `error_during_execution`.
 */
export const ResultSubtype = z.enum([
  'success',
  'error_max_turns',
  'error_during_execution',
  'error_max_structured_output_retries',
]);
export type ResultSubtype = z.infer<typeof ResultSubtype>;

/**
 * The last line of `--output-format stream-json`, and the whole of `--output-format json`.
 * Carries Claude Code's fields (`subtype`, `is_error`, `result`, `session_id`, `num_turns`,
 * `total_cost_usd`, `usage`, `duration_ms`, `structured_output`) next to Skate's own.
 */
export const RunResult = z.object({
  type: z.literal('result'),
  subtype: ResultSubtype,
  /** True for every ending but `success`. */
  is_error: z.boolean(),
  /** The model's final message (Claude Code's name for `finalMessage`). */
  result: z.string(),
  session_id: z.string().optional(),
  num_turns: z.number().int(),
  total_cost_usd: z.number().optional(),
  duration_ms: z.number(),
  /** With `--output-schema`: the final answer, validated against the schema. */
  structured_output: z.unknown().optional(),
  status: z.enum(['complete', 'cancelled', 'error', 'loop_cap', 'repetition']),
  finalMessage: z.string(),
  turns: z.number().int(),
  toolCalls: z.number().int(),
  usage: ResultUsage,
  costUsd: z.number().optional(),
  model: z.string(),
  sessionId: z.string().optional(),
  durationMs: z.number(),
  error: z.string().optional(),
  /**
   * What stopped a run with status `error`: the provider's failure kind (`authentication`,
   * `unavailable`, …), `executor`, `crash` (the harness itself failed), `terminated` (SIGTERM),
   * `invalid_output` (`--output-schema` not met).
   */
  errorCode: z.string().optional(),
  /** The sub-agents the run dispatched: tokens per dispatch, retries, cache, wall time, failures by kind. */
  dispatch: DispatchTelemetry.optional(),
});
export type RunResult = z.infer<typeof RunResult>;

/**
 * One MCP server in `system/init`: `configured` (tools not known), `known` (tools remembered, not
 * started), `starting`, `running`, or `failed` with why (`error`) and when (`failedAt`, ISO 8601),
 * a failure remembered from an earlier run included (it is being started again in the background).
 */
export const McpServerStatus = z.object({
  name: z.string(),
  status: z.enum(['configured', 'known', 'starting', 'running', 'failed']),
  error: z.string().optional(),
  failedAt: z.string().optional(),
});
export type McpServerStatus = z.infer<typeof McpServerStatus>;

/** The first line of `--output-format stream-json`: what the run is, before any event. */
export const SystemInit = z.object({
  type: z.literal('system'),
  subtype: z.literal('init'),
  /** The session being recorded (absent with --no-session); resume it with `skate --resume ID`. */
  sessionId: z.string().optional(),
  /** Claude Code's name for `sessionId`. */
  session_id: z.string().optional(),
  model: z.string(),
  policy: z.string(),
  /** The policy's network for this run; absent for a remote executor, whose server chose it. */
  network: NetworkSetting.optional(),
  /** How the policy is enforced here: kernel, best-effort or none. */
  sandbox: z.string(),
  workspace: z.string(),
  /** Claude Code's name for the directory the agent works in: the workspace. */
  cwd: z.string(),
  /** Every tool the model is offered: the executor's and the harness's own. */
  tools: z.array(z.string()),
  /** The run's MCP servers as the run starts (Claude Code's field); absent when none are configured. */
  mcp_servers: z.array(McpServerStatus).optional(),
  version: z.string(),
});
export type SystemInit = z.infer<typeof SystemInit>;
