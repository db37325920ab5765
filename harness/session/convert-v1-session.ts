import type { ContentBlock, Message } from '../../shared/conversation.js';
import {
  SESSION_FORMAT_VERSION,
  type SessionEvent,
  type SessionHeader,
  type SessionPayload,
} from '../../shared/session-format.js';
import type { ContentBlockV1, SessionEventV1, SessionHeaderV1 } from '../../shared/session-format-v1.js';

/** A version 1 session in today's form. */
export interface ConvertedSession {
  header: SessionHeader;
  events: SessionEvent[];
  /**
   * Version 1 events folded into another event, by id: a `tool_call` into its
   * assistant message, a `tool_result` or appended user text into its tool
   * results message. Ids users saw (`sessions show`, `--fork-at`) still resolve.
   */
  aliases: Map<string, string>;
}

/**
 * Converts version 1 events (in file order, parents first) to whole messages.
 * Each assistant message keeps its own event id; a run of `tool_result` events
 * (and a `user_message` with `appendToToolResults` after it) becomes one
 * `user_message` under the first result's id. Nothing the model saw changes:
 * `conversationAt` gives the same messages before and after.
 */
export function convertV1Session(
  header: SessionHeaderV1,
  v1Events: readonly SessionEventV1[],
): ConvertedSession {
  const events: SessionEvent[] = [];
  const byId = new Map<string, SessionEvent>();
  /** Where each folded event went; null for one with nothing above it to fold into. */
  const folded = new Map<string, string | null>();
  /** Tool results messages made from `tool_result` events, which later results of the run join. */
  const resultRuns = new Set<string>();
  const resolve = (id: string | null): string | null =>
    id !== null && folded.has(id) ? folded.get(id)! : id;

  for (const event of v1Events) {
    const parentId = resolve(event.parentId);
    const parent = parentId === null ? undefined : byId.get(parentId);
    const add = (payload: SessionPayload): SessionEvent => {
      const converted: SessionEvent = { id: event.id, parentId, timestamp: event.timestamp, payload };
      events.push(converted);
      byId.set(converted.id, converted);
      return converted;
    };
    const joinRun = (blocks: ContentBlock[]): boolean => {
      if (!parent || !resultRuns.has(parent.id) || parent.payload.type !== 'user_message') return false;
      parent.payload.message.content.push(...blocks);
      folded.set(event.id, parent.id);
      return true;
    };
    const { payload } = event;
    switch (payload.type) {
      case 'tool_call':
        // The assistant message above holds the call; this event only repeated it.
        folded.set(event.id, parentId);
        break;
      case 'tool_result': {
        const block: ContentBlock = {
          type: 'tool_result',
          callId: payload.callId,
          output: payload.output,
          isError: payload.isError,
        };
        if (!joinRun([block])) {
          resultRuns.add(add({ type: 'user_message', message: { role: 'user', content: [block] } }).id);
        }
        break;
      }
      case 'user_message': {
        const message = userMessage(payload.message);
        if (!(payload.appendToToolResults && joinRun(message.content)))
          add({ type: 'user_message', message });
        break;
      }
      case 'assistant_message':
        add({
          ...payload,
          message: { role: 'assistant', content: payload.message.content.map(convertBlock) },
        });
        break;
      default:
        add(payload);
    }
  }

  const aliases = new Map<string, string>();
  for (const [id, into] of folded) if (into !== null) aliases.set(id, into);
  const { forkedFrom, ...rest } = header;
  return {
    header: {
      ...rest,
      version: SESSION_FORMAT_VERSION,
      ...(forkedFrom && {
        forkedFrom: { ...forkedFrom, eventId: aliases.get(forkedFrom.eventId) ?? forkedFrom.eventId },
      }),
    },
    events,
    aliases,
  };
}

function userMessage(message: { content: readonly ContentBlockV1[] }): Message & { role: 'user' } {
  return { role: 'user', content: message.content.map(convertBlock) };
}

function convertBlock(block: ContentBlockV1): ContentBlock {
  if (block.type === 'tool_result' && 'toolUseId' in block)
    return { type: 'tool_result', callId: block.toolUseId, output: block.content, isError: block.isError };
  return block;
}
