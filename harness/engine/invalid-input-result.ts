import * as z from 'zod';
import type { ToolResult } from '../../shared/tool.js';

/** A harness tool's answer to input its schema refuses: a result the model can correct, not a throw. */
export function invalidInputResult(toolName: string, error: z.ZodError): ToolResult {
  return {
    output: `${toolName} input is invalid:\n${z.prettifyError(error)}`,
    isError: true,
    code: 'invalid_input',
  };
}
