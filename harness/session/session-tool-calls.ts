import type { SessionEvent } from '../../shared/session-format.js';

/** One tool call of a session, read back from its logged messages. */
export interface SessionToolCall {
  callId: string;
  name: string;
  input: unknown;
  /** The event of the assistant message that made the call. */
  eventId: string;
  /** Its result, once one was logged. */
  result?: { eventId: string; output: string; isError: boolean };
}

/**
 * The audit view of the tool calls in `events` (a path, or a whole file, in
 * order): each tool_use block of an assistant message, with the tool_result
 * that answered it. Sessions log messages whole; this is where calls are listed.
 */
export function sessionToolCalls(events: readonly SessionEvent[]): SessionToolCall[] {
  const calls: SessionToolCall[] = [];
  const open = new Map<string, SessionToolCall>();
  for (const { id, payload } of events) {
    if (payload.type !== 'assistant_message' && payload.type !== 'user_message') continue;
    for (const block of payload.message.content) {
      if (block.type === 'tool_use') {
        const call: SessionToolCall = { callId: block.id, name: block.name, input: block.input, eventId: id };
        calls.push(call);
        open.set(block.id, call);
      } else if (block.type === 'tool_result') {
        const call = open.get(block.callId);
        if (!call) continue;
        open.delete(block.callId);
        call.result = { eventId: id, output: block.output, isError: block.isError };
      }
    }
  }
  return calls;
}
