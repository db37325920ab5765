import * as z from 'zod';
import { EngineCommand, EngineEvent, ImageInput, TokenUsage } from './engine-events.js';
import { RunResult } from './run-result.js';
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
  'busy',
  'not_pending',
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
    network: z.enum(['on', 'off']).optional().describe("Only 'on' where the server's policy has network."),
    approval: ApprovalMode.optional().describe("Never laxer than the server's (auto < ask < deny-writes)."),
    model: z.string().min(1).optional(),
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
  network: z.enum(['on', 'off']),
  approval: ApprovalMode,
  model: z.string(),
  status: z.enum(['idle', 'running', 'stopped']).describe('stopped: its executor was stopped while idle.'),
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
  .object({ text: z.string().min(1), images: z.array(ImageInput).optional() })
  .strict();
export type PromptRequest = z.infer<typeof PromptRequest>;

/** `POST /v1/sessions/{id}/commands`: an answer to the running engine, or an interrupt. */
const [, ...answers] = EngineCommand.options;
export const CommandRequest = z.discriminatedUnion('type', answers);
export type CommandRequest = z.infer<typeof CommandRequest>;

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
 * One message of a run's `text/event-stream`: SSE `event:` is its `type`,
 * `data:` this JSON, `id:` a number increasing through the session's runs.
 * `run_start` first, the run's `EngineEvent`s, then `result`.
 */
export const StreamMessage = z.discriminatedUnion('type', [RunStart, ...EngineEvent.options, RunResult]);
export type StreamMessage = z.infer<typeof StreamMessage>;

/** The JSON answer to a prompt sent with `Accept: application/json`: the run's events and its result. */
export const PromptJsonResponse = z.object({
  runId: z.string(),
  events: z.array(EngineEvent),
  result: RunResult,
});
export type PromptJsonResponse = z.infer<typeof PromptJsonResponse>;
