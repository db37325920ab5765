import { isObject } from './is-object.js';
import { ToolErrorCode, type ToolResult } from './tool.js';

const CODES: ReadonlySet<unknown> = new Set(ToolErrorCode.options);

/**
 * `ToolResult.parse` by hand for a result with no `display` (every MCP result, most failures):
 * what zod returns (unknown keys dropped), or undefined where the schema is left to decide (a
 * display, or anything zod might refuse). On the harness's side of every tool call, where zod's
 * object parse cost ~10 µs a call before V8 had optimised it.
 * test/unit/rpc/hand-checks.test.ts holds it to the schema.
 */
export function checkToolResult(value: unknown): ToolResult | undefined {
  if (!isObject(value)) return undefined;
  const { output, isError, code, display } = value;
  if (typeof output !== 'string' || typeof isError !== 'boolean' || display !== undefined) return undefined;
  if (code === undefined) return { output, isError };
  return CODES.has(code) ? { output, isError, code: code as ToolResult['code'] } : undefined;
}
