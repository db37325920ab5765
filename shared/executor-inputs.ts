import { isObject } from './is-object.js';
import type { ToolCallRequest, ToolOutputRequest } from './tool.js';

/*
 * The executor router's inputs checked by hand (`checkedInput`), so serving loads no zod: each
 * returns what zod's parse returns, or undefined where zod might refuse.
 * test/unit/rpc/hand-checks.test.ts holds them to the zod schemas in tool.ts.
 */

/** `ToolCallRequest.parse`, by hand. */
export function checkToolCallRequest(value: unknown): ToolCallRequest | undefined {
  if (!isObject(value)) return undefined;
  const { callId, name } = value;
  if (!isCallId(callId) || typeof name !== 'string' || name.length > 256 || !('input' in value)) {
    return undefined;
  }
  return { callId, name, input: value.input };
}

/** `ToolOutputRequest.parse`, by hand. */
export function checkToolOutputRequest(value: unknown): ToolOutputRequest | undefined {
  if (!isObject(value)) return undefined;
  const { callId } = value;
  return isCallId(callId) ? { callId } : undefined;
}

function isCallId(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= 128;
}
