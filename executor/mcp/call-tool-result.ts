import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { isObject } from '../../shared/is-object.js';

/**
 * A `tools/call` result as `CallToolResultSchema` accepts it, for the commonest shape only: text
 * blocks and an optional `isError`, nothing else. Undefined for anything else, which may still be
 * valid (the schema decides). Each accepted value is one the schema accepts and parses to an
 * equal value (`test/unit/mcp/mcp-hand-checks.test.ts`).
 */
export function checkCallToolResult(value: unknown): CallToolResult | undefined {
  if (!isObject(value)) return undefined;
  const { content, isError } = value;
  if (!Array.isArray(content) || (isError !== undefined && typeof isError !== 'boolean')) return undefined;
  for (const key of Object.keys(value)) if (key !== 'content' && key !== 'isError') return undefined;
  for (const block of content) {
    if (!isObject(block) || block.type !== 'text' || typeof block.text !== 'string') return undefined;
    for (const key of Object.keys(block)) if (key !== 'type' && key !== 'text') return undefined;
  }
  return value as CallToolResult;
}

/**
 * What the executor's client parses a tool's result with: the hand check, and the SDK's own
 * `CallToolResultSchema` (its defaults and its refusals) for everything the check leaves. The
 * schema walks every block through a union of five content kinds, ~10 µs a call before V8 has
 * optimised it; a server's answer is still shape-checked once in full before it becomes a result.
 */
export const leanCallToolResultSchema = z.unknown().transform((value, ctx): CallToolResult => {
  const checked = checkCallToolResult(value);
  if (checked) return checked;
  const parsed = CallToolResultSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const { message, path } of parsed.error.issues) ctx.addIssue({ code: 'custom', message, path });
  return z.NEVER;
}) as unknown as typeof CallToolResultSchema; // The SDK types the parameter as its schema; what it needs is a zod schema whose output is one.
