import type { MetaTool } from '../engine/engine-types.js';
import type { LoadedTools } from '../engine/loaded-tools.js';
import { createToolSearchTool } from './tool-search-tool.js';

/** Bytes of MCP tool schemas sent with every request before `tool_search` takes their place. */
export const DEFAULT_TOOL_SCHEMA_BUDGET = 4096;

/** What the tools cost in a request: name, description and input schema, as JSON. */
export function schemaBytes(tools: readonly MetaTool[]): number {
  let bytes = 0;
  for (const { definition } of tools) {
    const { name, description, inputSchema } = definition;
    bytes += Buffer.byteLength(JSON.stringify({ name, description, input_schema: inputSchema }));
  }
  return bytes;
}

/**
 * An agent's MCP tools as the model sees them: all of them while their schemas fit the budget;
 * past it, `tool_search` and the tools deferred (offered once loaded, see `LoadedTools`).
 */
export function budgetMcpTools(
  tools: readonly MetaTool[],
  budgetBytes: number,
  loaded: LoadedTools | undefined,
): MetaTool[] {
  if (tools.length === 0 || !loaded || schemaBytes(tools) <= budgetBytes) return [...tools];
  return [createToolSearchTool(tools, loaded), ...tools.map((tool) => ({ ...tool, deferred: true }))];
}
