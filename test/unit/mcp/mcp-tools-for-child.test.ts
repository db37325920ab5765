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

function tool(name: string): MetaTool {
  return {
    definition: { name, description: name, effect: 'read', inputSchema: { type: 'object' } },
    run: async () => ({ output: name, isError: false }),
  };
}

function server(name: string, config: McpServerConfig, tools: string[]): McpServerTools {
  return {
    server: name,
    policy: async () => mcpServerPolicy(name, config, run, WS),
    tools: tools.map((t) => tool(`mcp__${name}__${t}`)),
  };
}

const reader = server('r', { command: 'node', args: ['r.js'] }, ['get', 'list']);
const writer = server('w', { command: 'node', args: ['w.js'], policy: { write: ['out'] } }, ['put']);
const online = server(
  'n',
  { command: 'node', args: ['n.js'], policy: { network: { allow: ['api.example.com'], deny: [] } } },
  ['fetch'],
);
const remote = server('h', { type: 'http', url: 'https://mcp.example.com/mcp' }, ['ask']);
const servers = [reader, writer, online, remote];
const names = (grant: { tools: MetaTool[] }): string[] => grant.tools.map((t) => t.definition.name);

describe('MCP tools for a sub-agent', () => {
  it('applies the same grant to the servers as they are after a change: never a refused server, a name not asked for, or one gone', async () => {
    const readOnly = narrowPolicy(run, { name: 'c', readOnly: true });
    const grant = await mcpToolsForChild(['mcp__r__*', 'mcp__w__*', 'mcp__n__fetch'], servers, readOnly);
    expect(names(grant)).toEqual(['mcp__r__get', 'mcp__r__list', 'mcp__n__fetch']);
    const changed = [
      server('r', { command: 'node', args: ['r.js'] }, ['list', 'new']),
      server('w', { command: 'node', args: ['w.js'], policy: { write: ['out'] } }, ['put', 'more']),
      server('n', { command: 'node', args: ['n.js'] }, ['fetch', 'fetch2']),
    ];
    // r's get gone and new added; w refused at spawn stays refused; n's fetch2 is not the name asked for.
    expect(grant.current(changed).map((t) => t.definition.name)).toEqual([
      'mcp__r__list',
      'mcp__r__new',
      'mcp__n__fetch',
    ]);
  });

  it('gives only the named tools and patterns, and keeps the other names as they are', async () => {
    const child = narrowPolicy(run, { name: 'c', writePaths: [WS] });
    const grant = await mcpToolsForChild(['read_file', 'mcp__r__get', 'mcp__w__*'], servers, child);
    expect(names(grant)).toEqual(['mcp__r__get', 'mcp__w__put']);
    expect(grant.rest).toEqual(['read_file']);
    expect(grant.notGranted).toEqual([]);
  });

  it('refuses a server that writes to a read-only child, and one that reaches a host to a child without network', async () => {
    const readOnly = narrowPolicy(run, { name: 'c', readOnly: true });
    const ro = await mcpToolsForChild(['mcp__r__*', 'mcp__w__*', 'mcp__n__*'], servers, readOnly);
    // It keeps the run's network, so the server that reaches a host is given.
    expect(names(ro)).toEqual(['mcp__r__get', 'mcp__r__list', 'mcp__n__fetch']);
    expect(ro.notGranted.join('\n')).toMatch(/MCP server "w".*may write or reach more/);
    const offline = narrowPolicy(run, { name: 'c', writePaths: [WS], network: 'off' });
    const off = await mcpToolsForChild(['mcp__n__fetch', 'mcp__h__ask', 'mcp__w__put'], servers, offline);
    expect(names(off)).toEqual(['mcp__w__put']);
    expect(off.notGranted).toHaveLength(2);
  });

  it('says which names match no tool', async () => {
    const grant = await mcpToolsForChild(['mcp__nope__*'], servers, run);
    expect(grant.tools).toEqual([]);
    expect(grant.notGranted).toEqual(['mcp__nope__*: no MCP tool of that name']);
  });
});
