import { MCP_PROMPT_PREFIX, McpPromptArgument } from '../../shared/mcp-prompts.js';
import type { ToolDefinition, ToolResult } from '../../shared/tool.js';

/** One MCP prompt offered as a slash command (`/mcp__server__prompt arg…`) in every frontend. */
export interface McpPromptCommand {
  /** `mcp__<server>__<prompt>`, typed after a `/`. */
  name: string;
  server: string;
  description: string;
  /** In the server's order: the positional order of the command's arguments. */
  arguments: McpPromptArgument[];
  /** The server's `getPrompt`, through its executor: the messages as JSON (`McpPromptResult`), or an error. */
  get(args: Record<string, string>, signal: AbortSignal): Promise<ToolResult>;
}

/** Names the Messages API and the frontends accept for a command: as for a tool. */
const MAX_COMMAND_NAME = 64;

/**
 * A server's prompts as commands, from the reserved tool definitions its executor listed (or its
 * manifest remembered): the arguments are the schema's properties in order, `required` as listed.
 */
export function promptCommandsOf(
  server: string,
  definitions: readonly ToolDefinition[],
  call: (tool: string, input: unknown, signal: AbortSignal) => Promise<ToolResult>,
): McpPromptCommand[] {
  const commands: McpPromptCommand[] = [];
  for (const definition of definitions) {
    const prompt = definition.name.slice(MCP_PROMPT_PREFIX.length);
    const name = `mcp__${server}__${prompt}`;
    if (name.length > MAX_COMMAND_NAME) continue;
    const schema = definition.inputSchema;
    const properties = (schema.properties ?? {}) as Record<string, { description?: unknown }>;
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const args: McpPromptArgument[] = [];
    for (const [argName, property] of Object.entries(properties)) {
      const parsed = McpPromptArgument.safeParse({
        name: argName,
        ...(typeof property?.description === 'string' && { description: property.description }),
        required: required.has(argName),
      });
      if (parsed.success) args.push(parsed.data);
    }
    commands.push({
      name,
      server,
      description: definition.description,
      arguments: args,
      get: (input, signal) => call(definition.name, { arguments: input }, signal),
    });
  }
  return commands;
}

/** The arguments as a command's input hint: `<required> [optional]`, in order. */
export function promptCommandHint(command: Pick<McpPromptCommand, 'arguments'>): string {
  return command.arguments.map((arg) => (arg.required ? `<${arg.name}>` : `[${arg.name}]`)).join(' ');
}
