import * as z from 'zod';
import { EngineCommand, EngineEvent, ImageInput, TokenUsage } from './engine-events.js';
import { NetworkSetting } from './policy.js';
import { RunResult } from './run-result.js';
import { RuntimeCommand } from './runtime-command.js';
import { SessionEvent, SessionHeader } from './session-format.js';

/**
 * The wire contract of `skate serve` (issue 12): every request and response
 * body of the HTTP API, and each message of a run's event stream. The
 * OpenAPI document at `/openapi.json` is generated from these schemas.
 */

/** Why a request was refused; each code has one HTTP status (`serveErrorStatus`). */
export const ServeErrorCode = z.enum([
  'unauthorized',
  'bad_request',
  'not_found',
  'method_not_allowed',
  'not_acceptable',
  'unsupported_media_type',
  'payload_too_large',
  'forbidden',
  'host_not_allowed',
  'unknown_model',
  'busy',
  'not_pending',
  'workspace_in_use',
  'replay_gone',
  'too_many_sessions',
  'too_many_runs',
  'shutting_down',
  'start_failed',
  'internal',
]);
export type ServeErrorCode = z.infer<typeof ServeErrorCode>;

/** The body of every error response. */
export const ServeErrorBody = z.object({
  error: z.object({ code: ServeErrorCode, message: z.string() }),
});
export type ServeErrorBody = z.infer<typeof ServeErrorBody>;

export const ApprovalMode = z.enum(['auto', 'ask', 'deny-writes']);

/** `POST /v1/sessions`. */
export const CreateSessionRequest = z
  .object({
    workspace: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A directory inside the server's --workspace (relative to it, or absolute); default that one.",
      ),
    policy: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,63}$/, 'a policy name: lowercase letters, digits and dashes')
      .optional()
      .describe("A named policy, never wider than the server's; default the server's."),
    network: NetworkSetting.optional().describe(
      "'off', 'on' or {allow, deny}: never wider than the server's policy's network.",
    ),
    approval: ApprovalMode.optional().describe("Never laxer than the server's (auto < ask < deny-writes)."),
    model: z.string().min(1).optional().describe("A model of the catalog; default the server's --model."),
    resume: z
      .string()
      .min(1)
      .optional()
      .describe('Continue this earlier Skate session of the workspace (an id or a unique prefix).'),
  })
  .strict();
export type CreateSessionRequest = z.infer<typeof CreateSessionRequest>;

/** A session as the API shows it. */
export const SessionInfo = z.object({
  id: z.string().describe('The Skate session id (its log in <workspace>/.skate/sessions).'),
  workspace: z.string(),
  policy: z.string(),
  network: NetworkSetting,
  approval: ApprovalMode,
  model: z.string(),
  status: z.enum(['idle', 'running', 'stopped']).describe('stopped: its executor was stopped while idle.'),
  mode: z
    .enum(['agent', 'plan', 'execute'])
    .describe(
      'plan: read-only but the plan file, network off (as `skate plan`); execute: carrying out the plan (as `skate execute`).',
    ),
  planFile: z.string().optional().describe('While planning: the one path the agent may write.'),
  agentSessionId: z
    .string()
    .describe(
      'The Skate session log the agent writes now: `id` until a switch to plan or execute, which each start a session linked to the one before.',
    ),
  /** The run in progress, or the last one. */
  runId: z.string().optional(),
  /** The id of the last event streamed in this session (0 before any). */
  lastEventId: z.number().int().nonnegative(),
  created: z.iso.datetime(),
  lastActivity: z.iso.datetime(),
});
export type SessionInfo = z.infer<typeof SessionInfo>;

export const SessionList = z.object({ sessions: z.array(SessionInfo) });
export type SessionList = z.infer<typeof SessionList>;

/** `POST /v1/sessions/{id}/prompt`. */
export const PromptRequest = z
  .object({
    text: z.string().min(1),
    images: z.array(ImageInput).optional(),
    outputSchema: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'A JSON Schema (top level {"type": "object"}) the answer must match, as `skate -p --output-schema`: one repair turn for an invalid answer, then a failure (subtype error_max_structured_output_retries); the result\'s structured_output holds the valid one.',
      ),
  })
  .strict();
export type PromptRequest = z.infer<typeof PromptRequest>;

/** Answers to the running engine's requests, and an interrupt (202). */
const [, ...answers] = EngineCommand.options;

type RuntimeOption = (typeof RuntimeCommand.options)[number];
function runtimeOption<T extends RuntimeCommand['type']>(
  type: T,
): Extract<RuntimeOption, { shape: { type: z.ZodLiteral<T> } }> {
  return RuntimeCommand.options.find((option) => option.shape.type.value === type) as Extract<
    RuntimeOption,
    { shape: { type: z.ZodLiteral<T> } }
  >;
}

/**
 * Changes to an idle session (200, the session after): the runtime's own
 * commands, each checked against the server's policy. `set_activity` starts
 * no run here (no `task`): the client prompts the planner as any agent.
 */
const sessionCommands = [
  runtimeOption('set_model'),
  runtimeOption('set_network'),
  runtimeOption('set_activity').omit({ task: true }),
] as const;

/**
 * Cancels one background sub-agent of the running session (202), as the terminal UI's agent tree
 * does: its dispatch ends `cancelled`, its executor stops, and the parent goes on.
 */
export const CancelAgentCommand = z
  .object({
    type: z.literal('cancel_agent'),
    agentId: z
      .string()
      .min(1)
      .describe("The id spawn_agent returned (`bg-1`), as the events' `agent` path ends."),
  })
  .strict();
export type CancelAgentCommand = z.infer<typeof CancelAgentCommand>;

/** `POST /v1/sessions/{id}/commands`. */
export const CommandRequest = z.discriminatedUnion('type', [
  ...answers,
  CancelAgentCommand,
  ...sessionCommands,
]);
export type CommandRequest = z.infer<typeof CommandRequest>;
/** What answers the running engine (or interrupts it, or cancels one of its background sub-agents). */
export type AnswerCommand = Extract<
  CommandRequest,
  { type: 'interrupt' | 'approval_response' | 'ask_user_response' | 'loop_decision' | 'cancel_agent' }
>;
/** What changes an idle session: its model, network or activity. */
export type SessionCommand = Exclude<CommandRequest, AnswerCommand>;

export const CommandResponse = z.object({
  accepted: z.literal(true),
});

/** `POST /v1/sessions/{id}/fork`. */
export const ForkRequest = z
  .object({
    atEventId: z
      .string()
      .min(1)
      .optional()
      .describe("A session log event id (see the transcript); default the session's last event."),
  })
  .strict();
export type ForkRequest = z.infer<typeof ForkRequest>;

/** `GET /v1/sessions/{id}/transcript`: the session log, as `skate sessions show --json` prints it. */
export const Transcript = z.object({
  header: SessionHeader,
  events: z.array(SessionEvent),
  totals: z.object({ usage: TokenUsage, costUsd: z.number(), unpricedModels: z.array(z.string()) }),
});
export type Transcript = z.infer<typeof Transcript>;

/** The first message of a run's stream. */
export const RunStart = z.object({
  type: z.literal('run_start'),
  runId: z.string(),
  sessionId: z.string(),
});

/**
 * A request of the engine (approval, ask_user, turn cap) nobody answered
 * within the server's `--approval-timeout`: answered for the client as
 * `answer` (approval rejected, question with no answer, run stopped).
 */
export const RequestTimeout = z.object({
  type: z.literal('request_timeout'),
  requestId: z.string(),
  answer: z.enum(['rejected', 'no_answer', 'stopped']),
  afterSeconds: z.number(),
});
export type RequestTimeout = z.infer<typeof RequestTimeout>;

/** What happens in a run: the engine's events and the server's own about it. */
export const RunEvent = z.discriminatedUnion('type', [...EngineEvent.options, RequestTimeout]);
export type RunEvent = z.infer<typeof RunEvent>;

/**
 * One message of a run's `text/event-stream`: SSE `event:` is its `type`,
 * `data:` this JSON, `id:` a number increasing through the session's runs.
 * `run_start` first, the run's events, then `result`.
 */
export const StreamMessage = z.discriminatedUnion('type', [RunStart, ...RunEvent.options, RunResult]);
export type StreamMessage = z.infer<typeof StreamMessage>;

/** The JSON answer to a prompt sent with `Accept: application/json`: the run's events and its result. */
export const PromptJsonResponse = z.object({
  runId: z.string(),
  events: z.array(RunEvent),
  result: RunResult,
});
export type PromptJsonResponse = z.infer<typeof PromptJsonResponse>;
