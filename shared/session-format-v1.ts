import * as z from 'zod';
import { ContentBlock } from './conversation.js';
import { TokenUsage } from './engine-events.js';
import { SessionHeader } from './session-format.js';
import { ToolErrorCode } from './tool.js';

/**
 * Version 1 of the session log, as Skate wrote it before messages were logged
 * whole: read and converted, never written. An assistant message was followed
 * by one `tool_call` event per tool_use block; a tool results message was split
 * into one `tool_result` event per result plus a `user_message` with
 * `appendToToolResults` for any other blocks; a tool_result block named its
 * call `toolUseId` and its text `content`.
 */
export const SESSION_FORMAT_V1 = 1;

const ToolResultV1 = z.object({
  type: z.literal('tool_result'),
  toolUseId: z.string(),
  content: z.string(),
  isError: z.boolean(),
});
/** Today's blocks, with the version 1 tool_result tried first. */
const ContentBlockV1 = z.union([ToolResultV1, ContentBlock]);
export type ContentBlockV1 = z.infer<typeof ContentBlockV1>;

const UserMessageV1 = z.object({ role: z.literal('user'), content: z.array(ContentBlockV1) });
const AssistantMessageV1 = z.object({ role: z.literal('assistant'), content: z.array(ContentBlockV1) });

export const SessionHeaderV1 = SessionHeader.extend({ version: z.literal(SESSION_FORMAT_V1) });
export type SessionHeaderV1 = z.infer<typeof SessionHeaderV1>;

export const SessionPayloadV1 = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('user_message'),
    message: UserMessageV1,
    appendToToolResults: z.boolean().optional(),
  }),
  z.object({
    type: z.literal('assistant_message'),
    message: AssistantMessageV1,
    usage: TokenUsage,
    model: z.string(),
  }),
  z.object({ type: z.literal('tool_call'), callId: z.string(), name: z.string(), input: z.unknown() }),
  z.object({
    type: z.literal('tool_result'),
    callId: z.string(),
    name: z.string(),
    output: z.string(),
    isError: z.boolean(),
    code: ToolErrorCode.optional(),
  }),
  z.object({
    type: z.literal('compaction'),
    summary: z.string(),
    replacedMessages: z.number().int().nonnegative(),
    usage: TokenUsage.optional(),
    model: z.string().optional(),
  }),
  z.object({ type: z.literal('model_change'), from: z.string(), to: z.string() }),
  z.object({
    type: z.literal('subagent_link'),
    childSessionId: z.uuid(),
    callId: z.string(),
    task: z.string(),
  }),
]);
export type SessionPayloadV1 = z.infer<typeof SessionPayloadV1>;

export const SessionEventV1 = z.object({
  id: z.uuid(),
  parentId: z.uuid().nullable(),
  timestamp: z.iso.datetime(),
  payload: SessionPayloadV1,
});
export type SessionEventV1 = z.infer<typeof SessionEventV1>;
