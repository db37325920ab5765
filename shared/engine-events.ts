import * as z from 'zod';
import { DispatchRecord } from './dispatch-telemetry.js';
import { HookEventName, HookOutcome } from './hooks.js';
import { NetworkDenialReason } from './network-allowlist.js';
import { ToolDisplay, ToolErrorCode } from './tool.js';

/**
 * The engine's protocol with any frontend (CLI, stream-json, later TUI, ACP,
 * HTTP). Events say what happened, never how to render it. Every variant is
 * tagged by `type`; types come from these schemas.
 */

/** Where an event comes from: `[]` for the main agent, `['explore-1']` for a sub-agent it spawned, and so on. */
export const AgentPath = z.array(z.string());
export type AgentPath = z.infer<typeof AgentPath>;

export const TokenUsage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

export const ImageInput = z.object({
  mediaType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
  /** Base64 of the image bytes. */
  data: z.string(),
});
export type ImageInput = z.infer<typeof ImageInput>;

const base = { agent: AgentPath.default([]) };

/** A hook ran and decided (or failed): shown in the conversation, and kept in the session log when notable. */
export const HookDecisionEvent = z.object({
  type: z.literal('hook_decision'),
  ...base,
  event: HookEventName,
  /** The hook's command line, as configured. */
  command: z.string(),
  /** Whose settings file it came from. */
  source: z.enum(['user', 'workspace']),
  outcome: HookOutcome,
  /** Its reason (a decision's reason, its stderr on exit 2, or why it failed). */
  reason: z.string().optional(),
  /** Its `systemMessage`: for the user. */
  message: z.string().optional(),
  /** For tool events: the tool and the model's call id. */
  toolName: z.string().optional(),
  callId: z.string().optional(),
  exitCode: z.number().int().optional(),
  durationMs: z.number(),
});

/**
 * The network proxy refused a connection of this agent's tools (issue #21): the host and port
 * asked for, why, when, and the shell command running then (when exactly one was).
 */
export const NetworkDeniedEvent = z.object({
  type: z.literal('network_denied'),
  ...base,
  host: z.string(),
  port: z.number().int(),
  reason: NetworkDenialReason,
  at: z.string(),
  callId: z.string().optional(),
  command: z.string().optional(),
});

export const EngineEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('turn_start'),
    ...base,
    turn: z.number().int(),
    /** The tool call of a parent agent that spawned this agent, for sub-agents (so a frontend links it at once). */
    parentCallId: z.string().optional(),
  }),
  z.object({
    type: z.literal('turn_end'),
    ...base,
    turn: z.number().int(),
    reason: z.enum(['complete', 'cancelled', 'error']),
  }),
  z.object({ type: z.literal('text_delta'), ...base, text: z.string() }),
  z.object({ type: z.literal('text_done'), ...base, text: z.string() }),
  z.object({ type: z.literal('thinking_start'), ...base }),
  z.object({ type: z.literal('thinking_delta'), ...base, text: z.string() }),
  z.object({ type: z.literal('thinking_done'), ...base, text: z.string() }),
  z.object({
    type: z.literal('tool_call_start'),
    ...base,
    id: z.string(),
    name: z.string(),
    args: z.unknown(),
    /** The tool call of a parent agent that spawned this agent, for sub-agents. */
    parentCallId: z.string().optional(),
  }),
  z.object({
    type: z.literal('tool_output_line'),
    ...base,
    id: z.string(),
    stream: z.enum(['stdout', 'stderr', 'progress']),
    text: z.string(),
  }),
  z.object({
    type: z.literal('tool_call_result'),
    ...base,
    id: z.string(),
    name: z.string(),
    output: z.string(),
    isError: z.boolean(),
    code: ToolErrorCode.optional(),
    display: ToolDisplay.optional(),
    durationMs: z.number(),
  }),
  z.object({
    type: z.literal('action_blocked'),
    ...base,
    id: z.string(),
    name: z.string(),
    /** Who blocked it: the sandbox policy, the user through an approval, or a hook (PreToolUse, PermissionRequest). */
    by: z.enum(['policy', 'user', 'hook']),
    reason: z.string(),
  }),
  z.object({
    type: z.literal('approval_request'),
    ...base,
    requestId: z.string(),
    callId: z.string(),
    name: z.string(),
    args: z.unknown(),
    effect: z.enum(['write', 'execute']),
  }),
  z.object({
    type: z.literal('ask_user_request'),
    ...base,
    requestId: z.string(),
    questions: z.array(
      z.object({
        question: z.string(),
        options: z.array(z.string()).optional(),
        multiSelect: z.boolean().optional(),
      }),
    ),
    /** Set when Skate itself asks about a connection its proxy refused (issue #21), not the model. */
    network: z.object({ host: z.string(), port: z.number().int() }).optional(),
  }),
  z.object({
    type: z.literal('context_usage'),
    ...base,
    usedTokens: z.number().int(),
    windowTokens: z.number().int(),
  }),
  z.object({
    type: z.literal('usage'),
    ...base,
    turn: TokenUsage,
    total: TokenUsage,
    elapsedMs: z.number(),
    /** Output tokens per second over this turn's model time. */
    outputTokensPerSecond: z.number(),
  }),
  z.object({
    /** A sub-agent ended: its figures and, when it failed, why (one name of `DispatchFailure`). */
    type: z.literal('dispatch_end'),
    ...base,
    /** The spawn_agent call that started it. */
    parentCallId: z.string(),
    record: DispatchRecord,
  }),
  z.object({
    type: z.literal('loop_cap_reached'),
    ...base,
    requestId: z.string(),
    iterations: z.number().int(),
  }),
  z.object({
    type: z.literal('compaction'),
    ...base,
    summarizedMessages: z.number().int(),
    summaryTokens: z.number().int(),
  }),
  HookDecisionEvent,
  NetworkDeniedEvent,
  z.object({ type: z.literal('info'), ...base, message: z.string() }),
  z.object({ type: z.literal('warn'), ...base, message: z.string() }),
  z.object({ type: z.literal('error'), ...base, message: z.string(), code: z.string().optional() }),
]);
export type EngineEvent = z.infer<typeof EngineEvent>;
export type EngineEventType = EngineEvent['type'];

export const EngineCommand = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user_prompt'), text: z.string(), images: z.array(ImageInput).default([]) }),
  z.object({ type: z.literal('interrupt') }),
  z.object({
    type: z.literal('approval_response'),
    requestId: z.string(),
    decision: z.enum(['approve', 'reject']),
    /** With `reject`: told to the model, so it can change course. */
    feedback: z.string().optional(),
  }),
  z.object({
    type: z.literal('ask_user_response'),
    requestId: z.string(),
    answers: z.array(z.string()),
  }),
  z.object({
    type: z.literal('loop_decision'),
    requestId: z.string(),
    decision: z.enum(['continue', 'stop']),
  }),
]);
export type EngineCommand = z.infer<typeof EngineCommand>;
