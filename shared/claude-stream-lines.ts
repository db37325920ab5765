import * as z from 'zod';

/**
 * The whole-message lines of `--output-format stream-json` in Claude Code's shape: an
 * `assistant` line per model reply and a `user` line per turn's tool results, each holding a
 * Messages API message, with `parent_tool_use_id` naming the spawn_agent call of a sub-agent's
 * (null for the main agent). Skate's fine-grained events come in the same stream, before them.
 */
const ContentBlock = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('thinking'), thinking: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
]);

const ToolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.string(),
  is_error: z.boolean(),
});

const LineBase = {
  parent_tool_use_id: z.string().nullable(),
  session_id: z.string().optional(),
  /** Skate's agent path of the message: `[]` for the main agent. */
  agent: z.array(z.string()),
};

export const AssistantLine = z.object({
  type: z.literal('assistant'),
  message: z.object({
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string(),
    content: z.array(ContentBlock),
    usage: z
      .object({
        input_tokens: z.number().int(),
        output_tokens: z.number().int(),
        cache_creation_input_tokens: z.number().int(),
        cache_read_input_tokens: z.number().int(),
      })
      .optional(),
  }),
  ...LineBase,
});
export type AssistantLine = z.infer<typeof AssistantLine>;

export const UserLine = z.object({
  type: z.literal('user'),
  message: z.object({ role: z.literal('user'), content: z.array(ToolResultBlock) }),
  ...LineBase,
});
export type UserLine = z.infer<typeof UserLine>;

export const MessageLine = z.discriminatedUnion('type', [AssistantLine, UserLine]);
export type MessageLine = z.infer<typeof MessageLine>;

/**
 * A line of `--input-format stream-json` on stdin, in Claude Code's shape: a user message (its
 * content a string or text blocks) is the next prompt, run once the one before has ended; an
 * `interrupt` stops the run in progress at once.
 */
export const InputLine = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('user'),
    message: z.object({
      role: z.literal('user'),
      content: z.union([
        z.string().min(1),
        z.array(z.looseObject({ type: z.literal('text'), text: z.string() })).min(1),
      ]),
    }),
  }),
  z.object({ type: z.literal('interrupt') }),
]);
export type InputLine = z.infer<typeof InputLine>;
