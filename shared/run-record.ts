import * as z from 'zod';
import { ContentBlock, Message, StopReason } from './conversation.js';
import { TokenUsage } from './engine-events.js';
import { OutputLine, ToolResult } from './tool.js';

/** The version of the record format `skate replay` reads. */
export const RUN_RECORD_VERSION = 1;

/** The first line of a `--record` file: the command line to run again (without `--record`). */
export const RecordHeader = z.object({
  type: z.literal('skate_record'),
  version: z.literal(RUN_RECORD_VERSION),
  /** The agent command's arguments, as given (the prompt among them). */
  args: z.array(z.string()),
  skate: z.string(),
});
export type RecordHeader = z.infer<typeof RecordHeader>;

const ProviderError = z.object({
  kind: z.enum(['authentication', 'bad_request', 'context_overflow', 'unavailable', 'connection', 'aborted']),
  message: z.string(),
  status: z.number().optional(),
});

/** One event of a model stream, as the provider gave it to the engine (`ProviderEvent`). */
export const RecordedProviderEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text_delta'), index: z.number(), text: z.string() }),
  z.object({ type: z.literal('thinking_delta'), index: z.number(), text: z.string() }),
  z.object({ type: z.literal('tool_use_start'), index: z.number(), id: z.string(), name: z.string() }),
  z.object({ type: z.literal('tool_input_delta'), index: z.number(), json: z.string() }),
  z.object({ type: z.literal('block_done'), index: z.number(), block: ContentBlock }),
  z.object({
    type: z.literal('retry'),
    attempt: z.number(),
    delayMs: z.number(),
    reason: z.string(),
    discard: z.boolean(),
  }),
  z.object({ type: z.literal('message_done'), message: Message, stopReason: StopReason, usage: TokenUsage }),
  z.object({ type: z.literal('error'), error: ProviderError, partial: z.array(ContentBlock).optional() }),
]);

/** Each model response, in the order the run asked for them. */
export const RecordedModelResponse = z.object({
  type: z.literal('model_response'),
  events: z.array(RecordedProviderEvent),
});

/** Each executor tool call: what was asked, the lines it streamed, what it returned. */
export const RecordedToolCall = z.object({
  type: z.literal('tool_call'),
  name: z.string(),
  input: z.unknown(),
  lines: z.array(OutputLine.omit({ callId: true })),
  result: ToolResult,
});

export const RecordLine = z.discriminatedUnion('type', [
  RecordHeader,
  RecordedModelResponse,
  RecordedToolCall,
]);
export type RecordLine = z.infer<typeof RecordLine>;
export type RecordedModelResponse = z.infer<typeof RecordedModelResponse>;
export type RecordedToolCall = z.infer<typeof RecordedToolCall>;
