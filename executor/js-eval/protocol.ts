/**
 * Messages between the js_eval tool and its worker process: one JSON object
 * per line, stdin to the worker, stdout back. Both sides validate with these.
 */
import * as z from 'zod';

/** The largest line either side accepts; a log or value is capped well below it. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export const EvalRequest = z.object({
  type: z.literal('eval'),
  id: z.number().int().nonnegative(),
  code: z.string(),
  timeoutMs: z.number().int().positive(),
  /** Console output sent per call; the rest is counted, not sent. */
  maxLogBytes: z.number().int().nonnegative(),
  /** Longest formatted value. */
  maxValueChars: z.number().int().positive(),
});
export type EvalRequest = z.infer<typeof EvalRequest>;

export const WorkerRequest = z.discriminatedUnion('type', [EvalRequest]);
export type WorkerRequest = z.infer<typeof WorkerRequest>;

export const LogLevel = z.enum(['log', 'info', 'debug', 'warn', 'error']);
export type LogLevel = z.infer<typeof LogLevel>;

/**
 * How an evaluation ended. `timeout` and `memory` always come with a fresh
 * isolate: the old one, and every variable in it, is gone.
 */
export const EvalStatus = z.enum(['ok', 'error', 'timeout', 'memory']);
export type EvalStatus = z.infer<typeof EvalStatus>;

export const WorkerMessage = z.discriminatedUnion('type', [
  /** Sent once the worker has loaded isolated-vm and reads requests. */
  z.object({ type: z.literal('ready'), pid: z.number().int() }),
  /** Sent instead of `ready` when isolated-vm cannot be loaded; the worker then exits. */
  z.object({ type: z.literal('unavailable'), reason: z.string(), fix: z.string() }),
  z.object({ type: z.literal('log'), id: z.number().int(), level: LogLevel, text: z.string() }),
  z.object({
    type: z.literal('result'),
    id: z.number().int(),
    status: EvalStatus,
    /** The formatted value, or the error with its stack lines inside the snippet. */
    text: z.string(),
    logsDropped: z.number().int().nonnegative(),
    /** Whether the isolate was thrown away, so earlier state is lost. */
    reset: z.boolean(),
  }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;
export type EvalResultMessage = Extract<WorkerMessage, { type: 'result' }>;
