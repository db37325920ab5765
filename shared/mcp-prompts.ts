import * as z from 'zod';

/**
 * An MCP server's prompts travel as reserved tools of its executor, one per prompt, named this
 * prefix + the prompt's name: their definitions (description, arguments as a JSON Schema whose
 * property order is the positional order) are remembered in the server's manifest with its tools,
 * so a run knows them without starting the server; a call is the SDK's `getPrompt`.
 */
export const MCP_PROMPT_PREFIX = '-skate-prompt-';

/** A prompt name that can be a slash command and a reserved tool name (`ToolName` allows 64). */
export const McpPromptName = z.string().regex(/^[a-zA-Z0-9_-]{1,50}$/);

export function isMcpPromptTool(name: string): boolean {
  return name.startsWith(MCP_PROMPT_PREFIX);
}

/** Most arguments a prompt is offered with; a prompt declaring more is left out. */
export const MAX_PROMPT_ARGUMENTS = 20;

/** One argument as a slash command shows it. */
export const McpPromptArgument = z.object({
  name: z.string().min(1).max(64),
  description: z.string().max(300).optional(),
  required: z.boolean(),
});
export type McpPromptArgument = z.infer<typeof McpPromptArgument>;

/** One piece of what `getPrompt` returned, as the executor passes it on (bounded there). */
export const McpPromptContent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), mimeType: z.string().max(100), data: z.string() }),
  /** What could not be passed on (audio, a binary resource, an image past the bound), said in words. */
  z.object({ type: z.literal('note'), text: z.string() }),
]);
export type McpPromptContent = z.infer<typeof McpPromptContent>;

/** A prompt's messages: the executor's output for a prompt tool's call, as JSON. */
export const McpPromptResult = z.object({
  description: z.string().optional(),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.array(McpPromptContent) })),
});
export type McpPromptResult = z.infer<typeof McpPromptResult>;
