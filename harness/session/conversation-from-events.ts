import { compactionSummaryMessage, type Message } from '../../shared/conversation.js';
import type { SessionEvent } from '../../shared/session-format.js';

/**
 * The messages the model would receive after the last of `path` (events from
 * the root, in order): messages as they were logged, whole, with compactions
 * replacing the first `replacedMessages` messages by the summary. Audit-only
 * events (model_change, subagent_link, title) add nothing.
 */
export function conversationFromEvents(
  path: readonly SessionEvent[],
  /** Told of each message taken whole from an event (not a compaction's summary), with that event. */
  onMessage?: (message: Message, event: SessionEvent) => void,
): Message[] {
  const messages: Message[] = [];
  for (const event of path) {
    const { payload } = event;
    switch (payload.type) {
      case 'user_message':
      case 'assistant_message': {
        const message = copy(payload.message);
        messages.push(message);
        onMessage?.(message, event);
        break;
      }
      case 'compaction':
        messages.splice(
          0,
          Math.min(payload.replacedMessages, messages.length),
          compactionSummaryMessage(payload.summary),
        );
        break;
      case 'model_change':
      case 'network_decision':
      case 'notice':
      case 'subagent_link':
      case 'title':
        break;
    }
  }
  return messages;
}

/** A fresh message object, so callers can change what they get without changing the loaded session. */
function copy(message: Message): Message {
  return { role: message.role, content: [...message.content] };
}
