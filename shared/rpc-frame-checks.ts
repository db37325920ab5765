import { isObject } from './is-object.js';
import type { RequestFrame, RequestId, ResponseFrame } from './rpc-envelope.js';

/*
 * Hand-written checks that accept only what the schemas in rpc-envelope.ts accept, for the
 * hot path: a zod union costs more per frame than the rest of the envelope handling, and an
 * executor that serves without loading zod starts faster in less memory. They may refuse what
 * zod accepts; callers then ask zod, which also words the error.
 * test/unit/rpc/rpc-envelope.test.ts holds the two together.
 */

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'number'
    ? Number.isInteger(value) && value >= 0
    : typeof value === 'string' && value.length >= 1 && value.length <= 128;
}

const METHODS: ReadonlySet<unknown> = new Set(['query', 'mutation', 'subscription']);

/** `RequestFrame.safeParse(value).success`, fast, for frames a client sends. */
export function isRequestFrame(value: unknown): value is RequestFrame {
  if (!isObject(value) || !isRequestId(value.id)) return false;
  if (value.jsonrpc !== undefined && value.jsonrpc !== '2.0') return false;
  if (value.method === 'subscription.stop') return true;
  const params = value.params;
  return (
    METHODS.has(value.method) &&
    isObject(params) &&
    'input' in params &&
    typeof params.path === 'string' &&
    params.path.length >= 1 &&
    params.path.length <= 256 &&
    (params.lastEventId === undefined || typeof params.lastEventId === 'string')
  );
}

/** `ResponseFrame.safeParse(value).success`, fast, for frames an executor sends. */
export function isResponseFrame(value: unknown): value is ResponseFrame {
  if (!isObject(value)) return false;
  if (value.jsonrpc !== undefined && value.jsonrpc !== '2.0') return false;
  if ('error' in value) return value.id === null || isRequestId(value.id);
  const result = value.result;
  if (!isRequestId(value.id) || !isObject(result)) return false;
  if (result.type === 'started' || result.type === 'stopped') return true;
  return result.type === 'data' && (result.id === undefined || typeof result.id === 'string');
}
