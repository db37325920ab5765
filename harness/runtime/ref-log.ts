import type { Message } from '../../shared/conversation.js';
import type { ConversationLog } from '../engine/engine-types.js';
import type { SessionWriter } from '../session/session-writer.js';
import type { LoggedMessage } from './logged-message.js';

/**
 * A session log that tells where each message landed: the writer's last
 * event id right after the append is recorded for the message and passed to
 * `onLogged`. A refused append (a stopped log) landed nowhere and is not told.
 */
export function refLog(
  log: ConversationLog,
  writer: SessionWriter,
  onLogged: (message: Message, logged: LoggedMessage) => void,
): ConversationLog {
  const logged = (message: Message, kind: LoggedMessage['kind'], append: () => void): void => {
    const parentId = writer.lastEventId;
    append();
    const eventId = writer.lastEventId;
    if (eventId === null || eventId === parentId) return;
    const callIds: string[] = [];
    for (const block of message.content) if (block.type === 'tool_result') callIds.push(block.callId);
    onLogged(message, { eventId, parentId, kind, callIds });
  };
  return {
    userMessage: (message) => logged(message, 'prompt', () => log.userMessage(message)),
    assistantMessage: (message, usage, model) =>
      logged(message, 'reply', () => log.assistantMessage(message, usage, model)),
    toolResults: (message) => logged(message, 'tool_results', () => log.toolResults(message)),
    compaction: (summary, replaced, usage, model) => log.compaction(summary, replaced, usage, model),
  };
}
