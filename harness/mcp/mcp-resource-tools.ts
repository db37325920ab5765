import * as z from 'zod';
import type { ToolResult } from '../../shared/tool.js';
import { inputJsonSchema } from '../agents/input-json-schema.js';
import type { MetaTool } from '../engine/engine-types.js';
import type { McpResourceServer } from './mcp-pool.js';

const ListInput = z
  .object({ server: z.string().min(1).describe('The MCP server whose resources to list.') })
  .strict();
const ReadInput = z
  .object({
    server: z.string().min(1).describe('The MCP server.'),
    uri: z.string().min(1).max(4096).describe('The resource’s URI, as mcp_list_resources gave it.'),
  })
  .strict();

/**
 * `mcp_list_resources` and `mcp_read_resource`: the resources of the servers that declare some,
 * each read through that server's executor as its tools are called (its confinement, its limits).
 */
export function mcpResourceTools(servers: readonly McpResourceServer[]): MetaTool[] {
  const names = servers.map((s) => s.server).join(', ');
  const find = (server: string): McpResourceServer | ToolResult =>
    servers.find((s) => s.server === server) ?? {
      output: `no MCP server "${server}" with resources; those with some: ${names}`,
      isError: true,
      code: 'invalid_input',
    };
  const invalid = (error: z.ZodError): ToolResult => ({
    output: `invalid input:\n${z.prettifyError(error)}`,
    isError: true,
    code: 'invalid_input',
  });
  return [
    {
      definition: {
        name: 'mcp_list_resources',
        description: `Lists an MCP server's resources (URI, name, type). Servers with resources: ${names}.`,
        effect: 'read',
        inputSchema: inputJsonSchema(ListInput),
      },
      async run(call) {
        const parsed = ListInput.safeParse(call.input);
        if (!parsed.success) return invalid(parsed.error);
        const server = find(parsed.data.server);
        return 'list' in server ? server.list(call.signal) : server;
      },
    },
    {
      definition: {
        name: 'mcp_read_resource',
        description: `Reads one resource of an MCP server (text as is, long text cut; binary summarised). Servers with resources: ${names}.`,
        effect: 'read',
        inputSchema: inputJsonSchema(ReadInput),
      },
      async run(call) {
        const parsed = ReadInput.safeParse(call.input);
        if (!parsed.success) return invalid(parsed.error);
        const server = find(parsed.data.server);
        return 'read' in server ? server.read(parsed.data.uri, call.signal) : server;
      },
    },
  ];
}
