import * as z from 'zod';
import { TokenUsage } from './engine-events.js';
import { NetworkSetting } from './policy.js';

/** The last line of `--output-format stream-json`, and the whole of `--output-format json`. */
export const RunResult = z.object({
  type: z.literal('result'),
  status: z.enum(['complete', 'cancelled', 'error', 'loop_cap', 'repetition']),
  finalMessage: z.string(),
  turns: z.number().int(),
  toolCalls: z.number().int(),
  usage: TokenUsage,
  costUsd: z.number().optional(),
  model: z.string(),
  sessionId: z.string().optional(),
  durationMs: z.number(),
  error: z.string().optional(),
});
export type RunResult = z.infer<typeof RunResult>;

/** The first line of `--output-format stream-json`: what the run is, before any event. */
export const SystemInit = z.object({
  type: z.literal('system'),
  subtype: z.literal('init'),
  /** The session being recorded (absent with --no-session); resume it with `skate --resume ID`. */
  sessionId: z.string().optional(),
  model: z.string(),
  policy: z.string(),
  /** The policy's network for this run; absent for a remote executor, whose server chose it. */
  network: NetworkSetting.optional(),
  /** How the policy is enforced here: kernel, best-effort or none. */
  sandbox: z.string(),
  workspace: z.string(),
  /** Every tool the model is offered: the executor's and the harness's own. */
  tools: z.array(z.string()),
  version: z.string(),
});
export type SystemInit = z.infer<typeof SystemInit>;
