import * as z from 'zod';
import { MCP_PROMPT_PREFIX } from '../../shared/mcp-prompts.js';
import { defineTool } from '../define-tool.js';
import type { LazyTool } from '../tool-registry.js';
import type { McpChild } from './mcp-child.js';
import type { McpPromptInfo } from './mcp-prompts.js';

/** A prompt's arguments: strings, as MCP has them (the server checks which it needs). */
const PROMPT_ARGUMENTS = z.record(z.string().max(64), z.string().max(100_000));

/**
 * The server's prompts as reserved tools of this executor (`-skate-prompt-<name>`, see
 * `shared/mcp-prompts.ts`): each definition carries the prompt's description and its arguments as
 * a JSON Schema, in their order; a call returns the prompt's messages as JSON within `limitBytes`.
 */
export function mcpPromptTools(
  child: McpChild,
  prompts: readonly McpPromptInfo[],
  timeoutMs: number,
  limitBytes: number,
): LazyTool[] {
  return prompts.map((prompt) => {
    const name = `${MCP_PROMPT_PREFIX}${prompt.name}`;
    const tool = defineTool({
      name,
      description: prompt.description,
      effect: 'read',
      input: z.object({ arguments: PROMPT_ARGUMENTS }),
      run: (input, ctx) => child.prompt(prompt.name, input.arguments, ctx.signal, timeoutMs, limitBytes),
    });
    const properties = Object.fromEntries(
      prompt.arguments.map((arg) => [
        arg.name,
        { type: 'string', ...(arg.description && { description: arg.description }) },
      ]),
    );
    return {
      definition: {
        name,
        description: prompt.description,
        effect: 'read' as const,
        inputSchema: {
          type: 'object',
          properties,
          required: prompt.arguments.filter((arg) => arg.required).map((arg) => arg.name),
        },
      },
      load: async () => tool,
    };
  });
}
