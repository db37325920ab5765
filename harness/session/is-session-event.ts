import { ImageInput } from '../../shared/engine-events.js';
import { isObject } from '../../shared/is-object.js';
import type { SessionEvent } from '../../shared/session-format.js';

/**
 * A hand-written check that accepts only what the `SessionEvent` zod schema
 * accepts, several times faster: zod costs ~1.5 µs a line, which is a third of
 * loading a 100,000-event session. It may reject what zod accepts (a newer
 * content block, an upper-case uuid); the reader then asks zod, which also
 * words the error. test/unit/session/is-session-event.test.ts holds the two together.
 */
export function isSessionEvent(value: unknown): value is SessionEvent {
  if (!isObject(value)) return false;
  const { id, parentId, timestamp, payload } = value;
  return (
    isUuid(id) &&
    (parentId === null || isUuid(parentId)) &&
    isTimestamp(timestamp) &&
    isObject(payload) &&
    isPayload(payload)
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MEDIA_TYPES: ReadonlySet<unknown> = new Set(ImageInput.shape.mediaType.options);

function isUuid(value: unknown): boolean {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * Exactly the form `Date.prototype.toISOString` writes, with a real calendar
 * date (no 30 February): zod's own ISO pattern narrowed to milliseconds. A
 * regex, because a Date round trip costs a microsecond a line.
 */
const TIMESTAMP =
  /^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-8])))T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

function isTimestamp(value: unknown): boolean {
  return typeof value === 'string' && TIMESTAMP.test(value);
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isPayload(payload: Record<string, unknown>): boolean {
  switch (payload.type) {
    case 'user_message':
      return isMessage(payload.message, 'user');
    case 'assistant_message':
      return (
        isMessage(payload.message, 'assistant') && isUsage(payload.usage) && typeof payload.model === 'string'
      );
    case 'compaction':
      return (
        typeof payload.summary === 'string' &&
        isCount(payload.replacedMessages) &&
        (payload.usage === undefined || isUsage(payload.usage)) &&
        (payload.model === undefined || typeof payload.model === 'string')
      );
    case 'model_change':
      return typeof payload.from === 'string' && typeof payload.to === 'string';
    case 'network_decision':
      return (
        typeof payload.host === 'string' &&
        Number.isSafeInteger(payload.port) &&
        (payload.decision === 'once' ||
          payload.decision === 'session' ||
          payload.decision === 'never' ||
          payload.decision === 'refused')
      );
    case 'title':
      return (
        typeof payload.title === 'string' &&
        payload.title.length >= 1 &&
        payload.title.length <= 200 &&
        (payload.usage === undefined || isUsage(payload.usage)) &&
        (payload.model === undefined || typeof payload.model === 'string')
      );
    case 'subagent_link':
      return (
        isUuid(payload.childSessionId) &&
        typeof payload.callId === 'string' &&
        typeof payload.task === 'string' &&
        (payload.agentId === undefined || typeof payload.agentId === 'string')
      );
    default:
      return false;
  }
}

function isUsage(usage: unknown): boolean {
  return (
    isObject(usage) &&
    isCount(usage.inputTokens) &&
    isCount(usage.outputTokens) &&
    isCount(usage.cacheReadTokens) &&
    isCount(usage.cacheWriteTokens)
  );
}

function isMessage(message: unknown, role: 'user' | 'assistant'): boolean {
  if (!isObject(message) || message.role !== role || !Array.isArray(message.content)) return false;
  for (const block of message.content) if (!isBlock(block)) return false;
  return true;
}

function isBlock(block: unknown): boolean {
  if (!isObject(block)) return false;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string';
    case 'tool_use':
      return typeof block.id === 'string' && typeof block.name === 'string';
    case 'tool_result':
      return (
        typeof block.callId === 'string' &&
        typeof block.output === 'string' &&
        typeof block.isError === 'boolean' &&
        // A display is checked by zod (the reader's fallback): rarer than a line, and many shapes.
        block.display === undefined
      );
    case 'thinking':
      return typeof block.thinking === 'string' && typeof block.signature === 'string';
    case 'redacted_thinking':
      return typeof block.data === 'string';
    case 'image':
      return MEDIA_TYPES.has(block.mediaType) && typeof block.data === 'string';
    default:
      return false;
  }
}
