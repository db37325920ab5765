import path from 'node:path';
import { type McpServer, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { startAcpEditor } from '../support/acp-editor.js';
import { cliEnv } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { testMcpHttpServer } from '../support/mcp-http-server.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const TOKEN = 'acp-remote-token-41b7c9d2';

const calls = (...named: [string, string, Record<string, unknown>][]): FakeReply => ({
  type: 'message',
  blocks: named.map(([id, name, input]) => ({ type: 'tool_use' as const, id, name, input })),
  stopReason: 'tool_use',
});
const reply = (text: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text }] });

/** The tool results the model was sent, by call id. */
function toolResults(api: { requests: readonly { body?: unknown }[] }): Record<string, string> {
  const found: Record<string, string> = {};
  for (const request of api.requests) {
    const messages = (request.body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
    for (const message of messages) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as { type: string; tool_use_id?: string; content?: unknown }[]) {
        if (block.type === 'tool_result' && block.tool_use_id)
          found[block.tool_use_id] =
            typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
      }
    }
  }
  return found;
}

// Workspaces outside /tmp, as in acp.test.ts: sandboxes get a private /tmp.
describe("skate acp runs the client's MCP servers", () => {
  it('advertises them, and a session/new with a stdio and an http server from the editor offers their tools, which the model calls; session/load brings them back', async () => {
    await using home = await hostDir('acp-mcp-home-');
    await using ws = await hostDir('acp-mcp-ws-');
    await using remote = await testMcpHttpServer({ transport: 'http', authorization: `Bearer ${TOKEN}` });
    await using api = await fakeMessagesApi([
      calls(
        ['s1', 'mcp__notes__echo', { text: 'from stdio' }],
        ['h1', 'mcp__remote__echo', { text: 'from http' }],
      ),
      reply('Both answered.'),
      calls(['s2', 'mcp__notes__echo', { text: 'after load' }]),
      reply('Still there.'),
    ]);
    const env = cliEnv({ home: home.path, api: api.url, key: 'sk-ant-test-key-for-acp' });
    const mcpServers: McpServer[] = [
      { name: 'notes', command: process.execPath, args: [TEST_SERVER], env: [] },
      {
        type: 'http',
        name: 'remote',
        url: remote.url,
        headers: [{ name: 'Authorization', value: `Bearer ${TOKEN}` }],
      },
    ];
    await using editor = startAcpEditor(['--approval', 'auto'], env);
    await editor.run(async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers });
      const first = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'ask both servers' }],
      });
      expect(first.stopReason, editor.stderr()).toBe('end_turn');
      await ctx.request(methods.agent.session.close, { sessionId });
      await ctx.request(methods.agent.session.load, { sessionId, cwd: ws.path, mcpServers });
      const second = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'again' }],
      });
      expect(second.stopReason, editor.stderr()).toBe('end_turn');
    });
    const tools = (api.requests[0]?.body?.tools ?? []).map((tool: { name: string }) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['mcp__notes__echo', 'mcp__remote__echo']));
    expect(toolResults(api)).toMatchObject({
      s1: 'echo: from stdio',
      h1: 'remote echo: from http',
      s2: 'echo: after load',
    });
    expect(remote.authorizations.every((value) => value === `Bearer ${TOKEN}`)).toBe(true);
    // The editor saw each MCP call as a tool call that completed.
    const statuses = editor.updates
      .map(({ update }) => update)
      .filter((update) => update.sessionUpdate === 'tool_call_update' && update.status === 'completed')
      .map((update) => (update as { toolCallId: string }).toolCallId);
    expect(statuses).toEqual(expect.arrayContaining(['s1', 'h1', 's2']));
    expect(editor.stderr()).not.toContain(TOKEN);
  }, 120_000);
});
