import { describe, expect, it } from 'vitest';
import { McpServerHandle, mcpServerPolicy } from '../../../harness/mcp/mcp-server-handle.js';
import { executorEnvironment } from '../../../harness/sandbox/executor-env.js';
import { remoteServerPattern } from '../../../shared/mcp-servers.js';
import { testPolicy } from '../../support/policies.js';

describe('a remote MCP server', () => {
  it("is reached at its URL's host:port when the URL names a port, its bare host (web ports) otherwise", () => {
    expect(remoteServerPattern('http://127.0.0.1:8931/mcp')).toBe('127.0.0.1:8931');
    expect(remoteServerPattern('https://mcp.example.com/mcp')).toBe('mcp.example.com');
    expect(remoteServerPattern('https://mcp.example.com:8443/sse')).toBe('mcp.example.com:8443');
    expect(remoteServerPattern('http://[::1]:9000/mcp')).toBe('[::1]:9000');
  });

  it("gets that one pattern whatever the agent's network, writes nothing, and keeps the agent's deny list", () => {
    for (const network of [{ mode: 'off' as const }, { mode: 'on' as const }]) {
      const agent = testPolicy('/work/ws', { network });
      const policy = mcpServerPolicy(
        'docs',
        { type: 'http', url: 'https://docs.example/mcp' },
        agent,
        '/work/ws',
      );
      expect(policy.network).toEqual({ mode: 'allowlist', allow: ['docs.example'], deny: [] });
      expect(policy.write.allow).toEqual([]);
    }
    const agent = testPolicy('/work/ws', {
      network: { mode: 'allowlist', allow: ['a.example'], deny: ['*.evil.example'] },
    });
    expect(
      mcpServerPolicy('x', { type: 'sse', url: 'http://localhost:7000/sse' }, agent, '/work/ws').network,
    ).toEqual({ mode: 'allowlist', allow: ['localhost:7000'], deny: ['*.evil.example'] });
    expect(() =>
      mcpServerPolicy('x', { type: 'http', url: 'https://mcp.evil.example/mcp' }, agent, '/work/ws'),
    ).toThrow(/deny list/);
  });

  it("withholds its headers' values (and the credential after a scheme) from every other sandbox's environment", () => {
    const token = 'unit-remote-token-7e3a91c2';
    new McpServerHandle({
      name: 'withheld',
      config: {
        type: 'http',
        url: 'https://docs.example/mcp',
        headers: { Authorization: `Bearer ${token}` },
      },
      workspace: '/work/ws',
      sandbox: 'required',
      agentPolicy: async () => testPolicy('/work/ws'),
      idleMs: 1000,
      startTimeoutMs: 1000,
    });
    const everything = testPolicy('/work/ws', { environment: { allow: ['*'], set: {} } });
    const env = executorEnvironment(everything, {
      PATH: '/usr/bin',
      MCP_TOKEN: token,
      HEADER: `Bearer ${token}`,
      URL_WITH_IT: `https://x:${token}@example.com`,
    });
    expect(env).toEqual({ PATH: '/usr/bin' });
  });
});
