import * as z from 'zod';
import { inputJsonSchema } from '../agents/input-json-schema.js';
import type { MetaTool } from '../engine/engine-types.js';
import { invalidInputResult } from '../engine/invalid-input-result.js';
import { LOADED_LINE_PREFIX, type LoadedTools } from '../engine/loaded-tools.js';
import { rankTools } from './rank-tools.js';

export const TOOL_SEARCH = 'tool_search';

const ToolSearchInput = z.object({
  query: z
    .string()
    .min(1)
    .max(500)
    .describe('Words for what you need (e.g. "read file", "create issue"), or a tool\'s full name.'),
  limit: z.number().int().min(1).max(10).optional().describe('Most tools to load (default 5).'),
});

/** Characters of the tool names listed in the description before "and N more". */
const MAX_LISTED_CHARS = 1500;
/** Characters of a tool's description shown in a search result. */
const MAX_RESULT_DESCRIPTION = 300;

/**
 * `tool_search`: finds MCP tools by their names and descriptions and loads the best matches'
 * schemas, which the model is offered from its next request on (and for the rest of the session).
 * The description names the tools without their schemas, so the model knows what to look for.
 */
export function createToolSearchTool(deferred: readonly MetaTool[], loaded: LoadedTools): MetaTool {
  const definitions = deferred.map((tool) => tool.definition);
  return {
    definition: {
      name: TOOL_SEARCH,
      description: describe(definitions.map((tool) => tool.name)),
      effect: 'read',
      inputSchema: inputJsonSchema(ToolSearchInput),
    },
    async run(call) {
      const parsed = ToolSearchInput.safeParse(call.input);
      if (!parsed.success) {
        return invalidInputResult(TOOL_SEARCH, parsed.error);
      }
      const { query, limit = 5 } = parsed.data;
      const found = rankTools(query, definitions).slice(0, limit);
      if (found.length === 0) {
        return {
          output: `No MCP tool matches ${JSON.stringify(query)}. Try other words, or one of the names in ${TOOL_SEARCH}'s description.`,
          isError: false,
        };
      }
      loaded.load(found.map((tool) => tool.name));
      const lines = found.map((tool) => `- ${tool.name}: ${oneLine(tool.description)}`);
      return {
        output: [
          `${found.length} MCP tool${found.length === 1 ? '' : 's'} found; their schemas are loaded, call them directly:`,
          ...lines,
          `${LOADED_LINE_PREFIX}${found.map((tool) => tool.name).join(', ')}`,
        ].join('\n'),
        isError: false,
      };
    },
  };
}

function describe(names: readonly string[]): string {
  const listed: string[] = [];
  let chars = 0;
  for (const name of names) {
    if (chars + name.length > MAX_LISTED_CHARS) break;
    listed.push(name);
    chars += name.length + 2;
  }
  const more = names.length - listed.length;
  return [
    'Finds MCP tools by what they do and loads their input schemas: the tools below are available, but their schemas are not sent until a search loads them (a call before that is refused and loads the tool).',
    `Tools: ${listed.join(', ')}${more > 0 ? `, and ${more} more` : ''}.`,
  ].join('\n');
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_RESULT_DESCRIPTION ? `${line.slice(0, MAX_RESULT_DESCRIPTION - 1)}…` : line;
}
