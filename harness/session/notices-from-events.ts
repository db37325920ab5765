import type { SessionEvent, SessionPayload } from '../../shared/session-format.js';

/** A notice of a session log with its place: after `position` messages of the rebuilt conversation. */
export interface PlacedNotice {
  position: number;
  notice: Extract<SessionPayload, { type: 'notice' | 'network_decision' }>;
}

/**
 * The notices on `path` (refusals, hook decisions, network decisions), each placed among the
 * messages `conversationFromEvents` rebuilds from the same path: a compaction moves those it
 * summarised to just after its summary, as their messages went into it.
 */
export function noticesFromEvents(path: readonly SessionEvent[]): PlacedNotice[] {
  const placed: PlacedNotice[] = [];
  let messages = 0;
  for (const { payload } of path) {
    switch (payload.type) {
      case 'user_message':
      case 'assistant_message':
        messages++;
        break;
      case 'compaction': {
        const replaced = Math.min(payload.replacedMessages, messages);
        for (const entry of placed)
          entry.position = entry.position <= replaced ? 1 : entry.position - replaced + 1;
        messages = messages - replaced + 1;
        break;
      }
      case 'notice':
      case 'network_decision':
        placed.push({ position: messages, notice: payload });
        break;
      default:
        break;
    }
  }
  return placed;
}
