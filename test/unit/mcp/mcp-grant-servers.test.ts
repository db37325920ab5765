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

const resources = (name: string) => ({
  server: name,
  list: async () => ({ output: `${name} resources`, isError: false }),
  read: async () => ({ output: `${name} resource`, isError: false }),
});

function server(
  name: string,
  config: McpServerConfig,
  tools: string[],
  withResources = false,
): McpServerTools {
  return {
    server: name,
    policy: async () => mcpServerPolicy(name, config, run, WS),
    tools: tools.map((t) => tool(`mcp__${name}__${t}`)),
    ...(withResources && { resources: resources(name) }),
  };
}

const names = (tools: readonly MetaTool[]): string[] => tools.map((t) => t.definition.name);
const view = (servers: McpServerTools[]) =>
  servers.map((s) => ({ server: s.server, tools: names(s.tools), resources: s.resources !== undefined }));

describe('what a sub-agent may give its own children (McpChildGrant.servers)', () => {
  it('is the servers it was given, with only the tools its names matched and resources only where given, as the servers are now', async () => {
    const r = (tools: string[]) => server('r', { command: 'node', args: ['r.js'] }, tools, true);
    const d = (tools: string[]) => server('d', { command: 'node', args: ['d.js'] }, tools, true);
    const w = server('w', { command: 'node', args: ['w.js'], policy: { write: ['out'] } }, ['put']);
    const child = narrowPolicy(run, { name: 'c', readOnly: true });
    const grant = await mcpToolsForChild(
      ['mcp__r__*', 'mcp__d__get', 'mcp__w__put'],
      [r(['get', 'list']), d(['get', 'drop']), w],
      child,
    );
    // w refused (it writes); d given only get, and not its resources (a single name gives none).
    expect(view(grant.servers([r(['get', 'list']), d(['get', 'drop']), w]))).toEqual([
      { server: 'r', tools: ['mcp__r__get', 'mcp__r__list'], resources: true },
      { server: 'd', tools: ['mcp__d__get'], resources: false },
    ]);
    // After a change: r's new tool matches its pattern, d's new one does not; w stays out.
    expect(view(grant.servers([r(['list', 'new']), d(['get', 'drop', 'new']), w]))).toEqual([
      { server: 'r', tools: ['mcp__r__list', 'mcp__r__new'], resources: true },
      { server: 'd', tools: ['mcp__d__get'], resources: false },
    ]);
    // A grandchild's grant taken from it: `mcp__d__*` is d's get alone, `mcp__w__put` matches nothing.
    const grandchild = await mcpToolsForChild(
      ['mcp__d__*', 'mcp__w__put'],
      grant.servers([r(['get', 'list']), d(['get', 'drop']), w]),
      child,
    );
    expect(names(grandchild.tools)).toEqual(['mcp__d__get']);
    expect(grandchild.notGranted).toEqual(['mcp__w__put: no MCP tool of that name']);
  });
});
