import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { isObject } from '../../shared/is-object.js';

/**
 * One line from an MCP server as the SDK's stdio transport reads it (`JSONRPCMessageSchema.parse`),
 * with the common messages checked by hand first: that zod union tries the request and
 * notification schemas before the result's, and building their refusals cost ~100 µs per answer
 * before V8 had optimised it (~25 µs after), more than the rest of a call in the executor. What the
 * hand check does not take (errors, requests, anything carrying `_meta`) the SDK's schema decides,
 * so every message is shape-checked exactly as before; the SDK's client then checks the envelope
 * again and the result against the request's schema. Throws as the schema's parse does.
 */
export function parseJsonRpcMessage(raw: unknown): JSONRPCMessage {
  return checkJsonRpcMessage(raw) ?? JSONRPCMessageSchema.parse(raw);
}

/**
 * A result response or a notification, as `JSONRPCMessageSchema` accepts it; undefined for
 * anything else (which may still be valid: the schema decides). Each accepted value is one the
 * schema accepts and parses to an equal value (`test/unit/mcp/mcp-hand-checks.test.ts`).
 */
export function checkJsonRpcMessage(value: unknown): JSONRPCMessage | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0') return undefined;
  if ('result' in value) {
    if (!onlyKeys(value, RESPONSE_KEYS) || !isRequestId(value.id) || !isPlainParams(value.result)) {
      return undefined;
    }
    return value as JSONRPCMessage;
  }
  if (typeof value.method === 'string' && !('id' in value) && onlyKeys(value, NOTIFICATION_KEYS)) {
    if (value.params !== undefined && !isPlainParams(value.params)) return undefined;
    return value as JSONRPCMessage;
  }
  return undefined;
}

const RESPONSE_KEYS = new Set(['jsonrpc', 'id', 'result']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);

/** The schemas are strict: no key beyond theirs (`__proto__` included, which a for-in would not list). */
function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(value)) if (!allowed.has(key)) return false;
  return true;
}

function isRequestId(value: unknown): boolean {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/** An object the loose result and params schemas pass on as it is: `_meta`, which they parse, is left to them. */
function isPlainParams(value: unknown): boolean {
  return isObject(value) && !Object.hasOwn(value, '_meta') && !Object.hasOwn(value, '__proto__');
}
