import * as z from 'zod';
import { Message } from './conversation.js';
import { HookDecisionEvent, NetworkDeniedEvent, TokenUsage } from './engine-events.js';

/**
 * The session log: one JSON object per line in `.skate/sessions/<id>.jsonl`.
 * Line 1 is a `SessionHeader`; every later line is a `SessionEvent`. Events
 * form a tree through `parentId` (a chain on each branch), so a conversation
 * can be rebuilt from any event by walking to the root.
 *
 * Messages are logged whole, as the model saw them: an assistant message with
 * its tool_use blocks, a tool results message with its tool_result blocks (and
 * any user text that rode along). Audit views (the tool calls of a session, a
 * transcript) are derived when reading. Version 1 split messages into per-call
 * events; `session-format-v1.ts` reads it.
 */

/**
 * Version 2 grows without a new number by what an older reader can leave out: new optional fields,
 * and new line kinds, which a reader skips when the line is well formed (its id, parentId and
 * timestamp valid), keeping its place in the event tree (`session-reader.ts`). A change to what an
 * existing line means needs a new number, and a reader of the old one. Skates from before this
 * rule (those that first wrote `notice` lines among them) refuse a line of a kind they do not know as corrupt.
 */
export const SESSION_FORMAT_VERSION = 2;

export const SessionHeader = z.object({
  type: z.literal('session'),
  version: z.literal(SESSION_FORMAT_VERSION),
  /** A uuid v7, which is also the file name. */
  id: z.uuid(),
  created: z.iso.datetime(),
  /** The workspace the session ran in. */
  cwd: z.string(),
  /** The model the session started with; later switches are `model_change` events. */
  model: z.string(),
  /** The name (or file) of the sandbox policy the session ran under. */
  policy: z.string(),
  /** Set on a sub-agent's session: the session of the agent that spawned it. */
  parentSessionId: z.uuid().optional(),
  /** Set on a fork: the session and event whose path this one starts with. */
  forkedFrom: z.object({ sessionId: z.uuid(), eventId: z.uuid() }).optional(),
});
export type SessionHeader = z.infer<typeof SessionHeader>;

const UserMessage = Message.extend({ role: z.literal('user') });
const AssistantMessage = Message.extend({ role: z.literal('assistant') });

export const SessionPayload = z.discriminatedUnion('type', [
  /** A prompt, or a tool results message (tool_result blocks, then any user text sent with them). */
  z.object({ type: z.literal('user_message'), message: UserMessage }),
  z.object({
    type: z.literal('assistant_message'),
    message: AssistantMessage,
    usage: TokenUsage,
    model: z.string(),
  }),
  /** The first `replacedMessages` messages were replaced by one user message holding `summary`. */
  z.object({
    type: z.literal('compaction'),
    summary: z.string(),
    replacedMessages: z.number().int().nonnegative(),
    /** What the summary request cost, and the model it ran on (for the price). */
    usage: TokenUsage.optional(),
    model: z.string().optional(),
  }),
  z.object({ type: z.literal('model_change'), from: z.string(), to: z.string() }),
  /**
   * The user's answer to a refused connection (issue #21): allowed once, for this session, or
   * never; `refused` when the question went unanswered.
   */
  z.object({
    type: z.literal('network_decision'),
    host: z.string(),
    port: z.number().int(),
    decision: z.enum(['once', 'session', 'never', 'refused']),
  }),
  /**
   * A short title for the session (a cheap model call after its first turn).
   * Shown by `skate sessions list` and the UI's picker; the latest one wins.
   * Sessions without one are listed under their first prompt.
   */
  z.object({
    type: z.literal('title'),
    title: z.string().min(1).max(200),
    /** What the title request cost, and the model it ran on (for the price). */
    usage: TokenUsage.optional(),
    model: z.string().optional(),
  }),
  /**
   * Something shown in the conversation that is no message: a connection the network proxy
   * refused, a hook's notable decision. Kept so that a resumed, forked or replayed session shows
   * it where it happened. Added to version 2 without a new number: older logs have none and load
   * as before (a Skate from before it, and from before readers skipped unknown kinds, refuses a
   * log holding one, as a corrupt line).
   */
  z.object({
    type: z.literal('notice'),
    event: z.discriminatedUnion('type', [NetworkDeniedEvent, HookDecisionEvent]),
  }),
  /** The `spawn_agent` call `callId` started sub-agent session `childSessionId`. */
  z.object({
    type: z.literal('subagent_link'),
    childSessionId: z.uuid(),
    callId: z.string(),
    task: z.string(),
    /** The child's id in this session (`agent-3`, `bg-1`): a resumed session continues after the highest. Absent in older logs. */
    agentId: z.string().optional(),
  }),
]);
export type SessionPayload = z.infer<typeof SessionPayload>;

export const SessionEvent = z.object({
  id: z.uuid(),
  /** The previous event on this branch; null for the first event. */
  parentId: z.uuid().nullable(),
  timestamp: z.iso.datetime(),
  payload: SessionPayload,
});
export type SessionEvent = z.infer<typeof SessionEvent>;
