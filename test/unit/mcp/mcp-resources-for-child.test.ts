import { describe, expect, it } from 'vitest';
import type { MetaTool } from '../../../harness/engine/engine-types.js';
import type { McpServerTools } from '../../../harness/mcp/mcp-pool.js';
import { mcpServerPolicy } from '../../../harness/mcp/mcp-server-handle.js';
import { mcpToolsForChild } from '../../../harness/mcp/mcp-tools-for-child.js';
import type { McpServerConfig } from '../../../shared/mcp-servers.js';
import { narrowPolicy } from '../../../shared/narrow-policy.js';
import { testPolicy } from '../../support/policies.js';

const WS = '/work/ws';
const run = testPolicy(WS, { network: { mode: 'on' } });
const signal = new AbortController().signal;

function server(name: string, config: McpServerConfig, tools: string[], resources: boolean): McpServerTools {
  return {
    server: name,
    policy: async () => mcpServerPolicy(name, config, run, WS),
    tools: tools.map(
      (t): MetaTool => ({
        definition: { name: `mcp__${name}__${t}`, description: t, effect: 'read', inputSchema: {} },
        run: async () => ({ output: t, isError: false }),
      }),
    ),
    ...(resources && {
      resources: {
        server: name,
        list: async () => ({ output: `${name}: resources`, isError: false }),
        read: async (uri: string) => ({ output: `${name} read ${uri}`, isError: false }),
      },
    }),
  };
}

const docs = server('d', { command: 'node', args: ['d.js'] }, ['search'], true);
const onlyResources = server('o', { command: 'node', args: ['o.js'] }, [], true);
const writer = server('w', { command: 'node', args: ['w.js'], policy: { write: ['out'] } }, ['put'], true);
const plain = server('p', { command: 'node', args: ['p.js'] }, ['go'], false);
const servers = [docs, onlyResources, writer, plain];
const names = (grant: { tools: MetaTool[] }): string[] => grant.tools.map((t) => t.definition.name);

async function call(grant: { tools: MetaTool[] }, name: string, input: unknown): Promise<string> {
  const tool = grant.tools.find((t) => t.definition.name === name)!;
  const result = await tool.run({ callId: 'c', input, signal } as Parameters<MetaTool['run']>[0]);
  return result.output;
}

describe('MCP resources for a sub-agent', () => {
  it('mcp__server__* gives that server’s resources with its tools (a server with resources only too), and no other’s', async () => {
    const child = narrowPolicy(run, { name: 'c', readOnly: true });
    const grant = await mcpToolsForChild(['mcp__d__*', 'mcp__o__*', 'mcp__p__*'], servers, child);
    expect(names(grant)).toEqual(['mcp__d__search', 'mcp__p__go', 'mcp_list_resources', 'mcp_read_resource']);
    expect(grant.notGranted).toEqual([]);
    expect(await call(grant, 'mcp_read_resource', { server: 'o', uri: 'x://1' })).toBe('o read x://1');
    expect(await call(grant, 'mcp_list_resources', { server: 'w' })).toMatch(
      /no MCP server "w" with resources/,
    );
  });

  it('a single tool gives no resources; the resource tools by name give every server the child may be given', async () => {
    const child = narrowPolicy(run, { name: 'c', readOnly: true });
    const one = await mcpToolsForChild(['mcp__d__search'], servers, child);
    expect(names(one)).toEqual(['mcp__d__search']);
    const all = await mcpToolsForChild(['read_file', 'mcp_read_resource'], servers, child);
    expect(all.rest).toEqual(['read_file']);
    expect(names(all)).toEqual(['mcp_list_resources', 'mcp_read_resource']);
    // The writing server's executor is wider than a read-only child: its resources are refused, and said.
    expect(all.notGranted).toEqual([
      expect.stringMatching(/MCP server "w" \(0 tools, resources\): .*may write/),
    ]);
    expect(await call(all, 'mcp_read_resource', { server: 'w', uri: 'x://1' })).toMatch(/no MCP server "w"/);
    expect(await call(all, 'mcp_read_resource', { server: 'd', uri: 'x://2' })).toBe('d read x://2');
  });

  it('a writing child is given the writing server’s resources; naming them with no server that has any says so', async () => {
    const writing = narrowPolicy(run, { name: 'c', writePaths: [WS] });
    const grant = await mcpToolsForChild(['mcp__w__*'], servers, writing);
    expect(names(grant)).toEqual(['mcp__w__put', 'mcp_list_resources', 'mcp_read_resource']);
    const none = await mcpToolsForChild(['mcp_list_resources'], [plain], writing);
    expect(names(none)).toEqual([]);
    expect(none.notGranted).toEqual([
      'mcp_list_resources, mcp_read_resource: no MCP server declares resources',
    ]);
  });
});
