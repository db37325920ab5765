import * as z from 'zod';
import { ExecutorHealth } from './executor-boot.js';
import type { ExecutorRouter } from './executor-router.js';
import { OutputLine, ToolDefinition, ToolResult } from './tool.js';

/**
 * What each procedure sends back, as a client checks it on arrival: the one
 * validation of an executor's answers on the harness side (the executor's
 * procedures validate their inputs, once, on the other side).
 */
export const executorOutputs = {
  listTools: z.array(ToolDefinition),
  callTool: ToolResult,
  toolOutput: OutputLine,
  health: ExecutorHealth,
  shutdown: z.object({ ok: z.literal(true) }),
} satisfies Record<keyof ExecutorRouter['_def']['procedures'], z.ZodType>;
