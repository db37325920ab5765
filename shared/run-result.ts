import { z } from 'zod';
import { TokenUsage } from './engine-events.js';

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
