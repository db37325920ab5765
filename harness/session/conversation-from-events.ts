import { type ContentBlock, compactionSummaryMessage, type Message } from '../../shared/conversation.js';
import type { SessionEvent } from '../../shared/session-format.js';

/**
 * The messages the model would receive after the last of `path` (events from
 * the root, in order): user and assistant messages as recorded, each run of
 * `tool_result` events as one user message, compactions replacing the first
 * `replacedMessages` messages with the summary. Audit-only events (tool_call,
 * model_change, subagent_link) add nothing.
 */
export function conversationFromEvents(path: readonly SessionEvent[]): Message[] {
  const messages: Message[] = [];
  // The tool results message being gathered; set while consecutive tool_result events arrive.
  let results: ContentBlock[] | undefined;
  for (const { payload } of path) {
    switch (payload.type) {
      case 'user_message':
        if (payload.appendToToolResults && results) results.push(...payload.message.content);
        else messages.push(copy(payload.message));
        if (!payload.appendToToolResults) results = undefined;
        break;
      case 'assistant_message':
        messages.push(copy(payload.message));
        results = undefined;
        break;
      case 'tool_result': {
        const block: ContentBlock = {
          type: 'tool_result',
          toolUseId: payload.callId,
          content: payload.output,
          isError: payload.isError,
        };
        if (results) results.push(block);
        else {
          results = [block];
          messages.push({ role: 'user', content: results });
        }
        break;
      }
      case 'compaction':
        messages.splice(
          0,
          Math.min(payload.replacedMessages, messages.length),
          compactionSummaryMessage(payload.summary),
        );
        results = undefined;
        break;
      case 'tool_call':
      case 'model_change':
      case 'subagent_link':
        break;
    }
  }
  return messages;
}

/** A fresh message object, so callers can change what they get without changing the loaded session. */
function copy(message: Message): Message {
  return { role: message.role, content: [...message.content] };
}
