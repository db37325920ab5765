import type { Message } from '../../shared/conversation.js';
import type { MessageRef } from '../runtime/logged-message.js';
import type { PlacedNotice } from '../session/notices-from-events.js';
import type { UiEvent } from './apply-engine-events.js';

const NO_CALLS: string[] = [];
const MAIN: [] = [];

/**
 * A recorded conversation (a continued or resumed session) as the events the
 * UI would have seen live, so it is shown by the same code as a live run.
 * Tool results carry the display the log kept, so a call's summary reads as
 * it did live (the same function makes it). With `refOf`, each message is followed by where it
 * is in the session log, as a live run's messages are.
 */
export function historyEvents(
  messages: readonly Message[],
  refOf?: (message: Message) => MessageRef | undefined,
  notices: readonly PlacedNotice[] = [],
): UiEvent[] {
  const events: UiEvent[] = [];
  const names = new Map<string, string>();
  let next = 0;
  /** The notices logged before message `index` (all that are left, at the end). */
  const noticesBefore = (index: number): void => {
    while (next < notices.length && notices[next]!.position <= index)
      events.push(noticeEvent(notices[next++]!));
  };
  for (const [index, message] of messages.entries()) {
    noticesBefore(index);
    for (const block of message.content) {
      switch (block.type) {
        case 'text':
          if (message.role === 'user') events.push({ type: 'user_prompt', agent: [], text: block.text });
          else events.push({ type: 'text_done', agent: [], text: block.text });
          break;
        case 'thinking':
          events.push(
            { type: 'thinking_start', agent: [] },
            { type: 'thinking_done', agent: [], text: block.thinking },
          );
          break;
        case 'tool_use':
          names.set(block.id, block.name);
          events.push({
            type: 'tool_call_start',
            agent: [],
            id: block.id,
            name: block.name,
            args: block.input,
          });
          break;
        case 'tool_result':
          events.push({
            type: 'tool_call_result',
            agent: [],
            id: block.callId,
            name: names.get(block.callId) ?? 'tool',
            output: block.output,
            isError: block.isError,
            durationMs: 0,
            ...(block.display !== undefined && { display: block.display }),
          });
          break;
        default:
          break;
      }
    }
    const ref = refOf?.(message);
    if (ref) {
      // Plain loops, shared empties, no spreads: this runs per message of sessions 100,000 events long.
      let callIds: string[] = NO_CALLS;
      for (const block of message.content) {
        if (block.type !== 'tool_result') continue;
        if (callIds === NO_CALLS) callIds = [];
        callIds.push(block.callId);
      }
      const kind = message.role === 'assistant' ? 'reply' : callIds.length > 0 ? 'tool_results' : 'prompt';
      const logged = { eventId: ref.eventId, parentId: ref.parentId, kind, callIds } as const;
      events.push({ type: 'message_logged', agent: MAIN, logged });
    }
  }
  noticesBefore(Number.POSITIVE_INFINITY);
  return events;
}

/** A logged notice as the event that showed it live. */
function noticeEvent({ notice }: PlacedNotice): UiEvent {
  return notice.type === 'notice' ? notice.event : { ...notice, agent: MAIN };
}
