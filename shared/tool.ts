import * as z from 'zod';

/** Tool names are what the model types; keep them to the Messages API's allowed characters. */
export const ToolName = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1–64 characters of letters, digits, _ and -');

/**
 * What a tool may do to the world. The harness gates approvals on this
 * (writes and commands need one in `ask` mode) without knowing tools by name.
 */
export const ToolEffect = z.enum(['read', 'write', 'execute']);
export type ToolEffect = z.infer<typeof ToolEffect>;

/** A tool as an executor advertises it; `inputSchema` is JSON Schema generated from the tool's zod input. */
export const ToolDefinition = z.object({
  name: ToolName,
  description: z.string(),
  effect: ToolEffect,
  /** Whether calls stream output lines (`toolOutput`); callers only subscribe for tools that do. */
  streamsOutput: z.boolean().optional(),
  /** Set when the tool cannot run on this machine: why, and how to fix it. Calls return `unavailable`. */
  unavailable: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/** One call of a tool. `callId` is chosen by the caller so it can cancel and stream the call. */
export const ToolCallRequest = z.object({
  callId: z.string().min(1).max(128),
  name: z.string().max(256),
  input: z.unknown(),
});
export type ToolCallRequest = z.infer<typeof ToolCallRequest>;

/** Which call's output lines to stream (`toolOutput`). */
export const ToolOutputRequest = z.object({ callId: z.string().min(1).max(128) });
export type ToolOutputRequest = z.infer<typeof ToolOutputRequest>;

/** Why a tool call failed; the model reads `output`, programs branch on `code`. */
export const ToolErrorCode = z.enum([
  'unknown_tool',
  'invalid_input',
  'input_too_large',
  'denied',
  'not_found',
  'conflict',
  'timeout',
  'cancelled',
  'failed',
  /** The tool cannot run on this machine (a native module that does not load, say); the output says how to fix it. */
  'unavailable',
  /** A remote MCP server refused its credentials (HTTP 401): the harness refreshes them or says `skate mcp login`. */
  'unauthorized',
  'internal',
]);
export type ToolErrorCode = z.infer<typeof ToolErrorCode>;

/** Data for a UI, never sent to the model. One variant per kind of thing a tool shows. */
export const ToolDisplay = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('file'),
    path: z.string(),
    startLine: z.number().int(),
    endLine: z.number().int(),
    totalLines: z.number().int(),
    truncated: z.boolean(),
  }),
  z.object({
    type: z.literal('diff'),
    path: z.string(),
    diff: z.string(),
    additions: z.number().int(),
    deletions: z.number().int(),
    created: z.boolean(),
  }),
  z.object({
    type: z.literal('listing'),
    path: z.string(),
    entries: z.number().int(),
    truncated: z.boolean(),
  }),
  z.object({
    type: z.literal('matches'),
    files: z.number().int(),
    matches: z.number().int(),
    truncated: z.boolean(),
  }),
  z.object({
    type: z.literal('command'),
    command: z.string(),
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    durationMs: z.number(),
    timedOut: z.boolean(),
    truncated: z.boolean(),
  }),
  z.object({
    type: z.literal('eval'),
    durationMs: z.number(),
    logs: z.number().int(),
  }),
]);
export type ToolDisplay = z.infer<typeof ToolDisplay>;

/** The outcome of every tool call, failures included: a failure is a result, not an exception. */
export const ToolResult = z.object({
  output: z.string(),
  isError: z.boolean(),
  code: ToolErrorCode.optional(),
  display: ToolDisplay.optional(),
});
export type ToolResult = z.infer<typeof ToolResult>;

/** A line of a running call's output, streamed while the call runs. */
export const OutputLine = z.object({
  callId: z.string(),
  stream: z.enum(['stdout', 'stderr', 'progress']),
  text: z.string(),
});
export type OutputLine = z.infer<typeof OutputLine>;
