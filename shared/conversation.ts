import * as z from 'zod';
import { ImageInput } from './engine-events.js';
import { ToolDisplay } from './tool.js';

/**
 * The conversation the engine keeps and sessions record: a provider-neutral
 * form close to the Messages API, which is the provider Skate speaks.
 *
 * A tool call has one id everywhere: a `tool_use` block is the call and holds
 * it as `id` (as do the engine's `tool_call_*` events, each about one call);
 * whatever answers or refers to a call names it `callId` (a `tool_result`
 * block, a session's `subagent_link`, an executor `ToolCallRequest`). A result's
 * text is `output` here as in `ToolResult` and `tool_call_result`. Only the
 * provider, where it meets the Messages API, maps these to `tool_use_id` and `content`.
 */
export const ContentBlock = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), ...ImageInput.shape }),
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  z.object({
    type: z.literal('tool_result'),
    callId: z.string(),
    output: z.string(),
    isError: z.boolean(),
    /**
     * What the tool showed a person (never sent to a model): kept in the session log so a
     * resumed, forked or replayed call reads as it did live.
     */
    display: ToolDisplay.optional(),
  }),
]);
export type ContentBlock = z.infer<typeof ContentBlock>;

export const Message = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.array(ContentBlock),
});
export type Message = z.infer<typeof Message>;

export const StopReason = z.enum([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
]);
export type StopReason = z.infer<typeof StopReason>;

/**
 * The message that stands for a compacted part of a conversation. The engine
 * makes it when it compacts; sessions make the same one when they rebuild a
 * conversation from a log, so a resumed run sends the model what it saw.
 */
export function compactionSummaryMessage(summary: string): Message {
  return {
    role: 'user',
    content: [
      {
        type: 'text',
        text: `This session continues from an earlier conversation, summarised to save context:\n\n${summary}`,
      },
    ],
  };
}
