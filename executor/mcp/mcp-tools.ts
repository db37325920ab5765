import * as z from 'zod';
import { latestEvery } from '../../shared/latest-every.js';
import { MCP_LIST_RESOURCES, MCP_READ_RESOURCE } from '../../shared/mcp-resource-tools.js';
import { ToolName } from '../../shared/tool.js';
import { defineTool } from '../define-tool.js';
import type { LazyTool } from '../tool-registry.js';
import type { McpChild, McpToolInfo } from './mcp-child.js';

/** Progress lines a call passes on per second (a server may send thousands). */
const PROGRESS_PER_SECOND = 10;

/** MCP arguments are an object; the server checks them against its own schema. */
const ANY_ARGUMENTS = z.looseObject({});

/**
 * The server's tools as this executor's own, under their MCP names (the harness adds
 * `mcp__<server>__`). A name the Messages API would refuse is left out, and said on stderr.
 */
export function mcpTools(child: McpChild, listed: readonly McpToolInfo[], timeoutMs: number): LazyTool[] {
  const tools: LazyTool[] = [];
  for (const info of listed) {
    if (!ToolName.safeParse(info.name).success) {
      process.stderr.write(
        `skate executor: MCP tool ${JSON.stringify(info.name.slice(0, 80))} left out: its name is not a valid tool name\n`,
      );
      continue;
    }
    const effect = info.readOnly ? 'read' : 'execute';
    const tool = defineTool({
      name: info.name,
      description: info.description,
      effect,
      input: ANY_ARGUMENTS,
      // Asking for progress sends the server a progress token, so a call that reports progress is
      // not cut by the call timeout (`resetTimeoutOnProgress`); its lines are the call's output, at
      // most PROGRESS_PER_SECOND of them (the latest), however many notifications the server sends.
      run: async (input, ctx) => {
        const progress = latestEvery<string>(1000 / PROGRESS_PER_SECOND, (line) =>
          ctx.emit('progress', line),
        );
        try {
          return await child.call(info.name, input, ctx.signal, timeoutMs, (line) => progress.push(line));
        } finally {
          progress.stop();
        }
      },
    });
    tools.push({
      // Not streamed: the harness watches a call's progress only once it runs long (`watchLate`).
      definition: {
        name: info.name,
        description: info.description,
        effect,
        inputSchema: info.inputSchema,
        streamsOutput: false,
      },
      load: async () => tool,
    });
  }
  return tools;
}

/** The server's resources as two tools of this executor (under reserved names; see `shared/mcp-resource-tools.ts`). */
export function mcpResourceTools(child: McpChild, timeoutMs: number): LazyTool[] {
  const list = defineTool({
    name: MCP_LIST_RESOURCES,
    description: "Lists the MCP server's resources.",
    effect: 'read',
    input: z.object({}),
    run: (_input, ctx) => child.resources(undefined, ctx.signal, timeoutMs),
  });
  const read = defineTool({
    name: MCP_READ_RESOURCE,
    description: "Reads one of the MCP server's resources.",
    effect: 'read',
    input: z.object({ uri: z.string().min(1).max(4096) }),
    run: (input, ctx) => child.resources(input.uri, ctx.signal, timeoutMs),
  });
  return [list, read].map((tool) => ({
    definition: {
      name: tool.name,
      description: tool.description,
      effect: 'read' as const,
      inputSchema: { type: 'object' },
    },
    load: async () => tool,
  }));
}
