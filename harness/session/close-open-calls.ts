import type { ContentBlock, Message } from '../../shared/conversation.js';
import type { ConversationLog } from '../engine/engine-types.js';

export const NO_RESULT_OUTPUT =
  'No result was recorded for this tool call: the session stopped (or was forked) before it finished. ' +
  'It may or may not have run; check before relying on it.';

/**
 * Gives every tool call of the last assistant message that has no result an
 * error result, logged and added to `messages`. A session cut off between a
 * tool_use and its result (a crash, a fork at that message) could otherwise
 * never be continued: the Messages API refuses a tool_use without a result.
 * Returns how many results it added.
 */
export function closeOpenCalls(messages: Message[], log: ConversationLog): number {
  const last = messages.at(-1);
  const assistant = last?.role === 'assistant' ? last : messages.at(-2);
  if (assistant?.role !== 'assistant') return 0;
  const results = last === assistant ? undefined : last;
  const answered = new Set(
    results?.content.flatMap((block) => (block.type === 'tool_result' ? [block.callId] : [])),
  );
  const missing: ContentBlock[] = assistant.content.flatMap((block) =>
    block.type === 'tool_use' && !answered.has(block.id)
      ? [{ type: 'tool_result' as const, callId: block.id, output: NO_RESULT_OUTPUT, isError: true }]
      : [],
  );
  if (missing.length === 0) return 0;
  // A plain user message after the assistant is a new prompt, not results: the calls stay open then.
  if (results && !results.content.some((block) => block.type === 'tool_result')) return 0;
  log.toolResults({ role: 'user', content: missing });
  if (results) results.content.push(...missing);
  else messages.push({ role: 'user', content: missing });
  return missing.length;
}
