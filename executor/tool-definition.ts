import * as z from 'zod';
import type { ToolDefinition } from '../shared/tool.js';
import type { AnyTool } from './define-tool.js';

/**
 * A loaded tool's definition as `listTools` reports it, its input as JSON Schema generated from
 * its zod input. The build runs this once per tool (`scripts/tool-definitions.mjs`) so executors
 * list tools without loading them, or zod; the registry runs it for tools handed over loaded.
 */
export function toolDefinition(tool: AnyTool): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    effect: tool.effect,
    streamsOutput: tool.streamsOutput ?? false,
    ...(tool.unavailable && { unavailable: tool.unavailable }),
    inputSchema: inputJsonSchema(tool.input),
  };
}

function inputJsonSchema(input: z.ZodObject): Record<string, unknown> {
  // `io: 'input'` keeps fields with defaults optional, which is what a caller may omit.
  const { $schema: _ignored, ...schema } = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' });
  return schema;
}
