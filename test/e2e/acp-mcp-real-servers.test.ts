import path from 'node:path';
import { type McpServer, methods } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { startAcpEditor } from '../support/acp-editor.js';
import { toolCall as call, cliEnv } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { eventually, pidsWithMarker } from '../support/processes.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { loggingSlowServer, logLines } from '../support/slow-mcp-server.js';

const ROOT = projectRoot();
const EVERYTHING_SERVER = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

const reply = (text: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text }] });

// Workspaces outside /tmp, as in acp.test.ts: sandboxes get a private /tmp.
describe('skate acp with the real server-everything and a slow server (#22)', () => {
  it("calls server-everything's tool from the editor's mcpServers (its result in the session update), and session/cancel reaches a slow call as notifications/cancelled", async () => {
    await using home = await hostDir('acp-mcp-real-home-');
    await using ws = await hostDir('acp-mcp-real-ws-');
    const { config, events, marker } = await loggingSlowServer(ws.path, 'acp-slow');
    await writeSkateSettings(home.path, { mcpServers: { s: config }, mcp: { toolSchemaBudget: 1_000_000 } });
    await using api = await fakeMessagesApi([
      call('e1', 'mcp__every__get-sum', { a: 19, b: 23 }),
      reply('Summed.'),
      call('slow1', 'mcp__s__slow', {}),
      reply('unused'),
    ]);
    const env = cliEnv({ home: home.path, api: api.url, key: 'sk-ant-test-key-for-acp' });
    const mcpServers: McpServer[] = [
      { name: 'every', command: process.execPath, args: [EVERYTHING_SERVER], env: [] },
    ];
    // Started in the workspace: the servers of your settings run under the policy of where skate acp started.
    await using editor = startAcpEditor(['--approval', 'auto'], env, ws.path);
    await editor.run(async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers });
      const first = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'add' }],
      });
      expect(first.stopReason, editor.stderr()).toBe('end_turn');
      const prompt = ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'take your time' }],
      });
      const calling = async () => (await logLines(events)).some((line) => line.startsWith('slow started'));
      const seen = await eventually(calling, 60_000);
      expect(seen, editor.stderr()).toBe(true);
      await ctx.notify(methods.agent.session.cancel, { sessionId });
      expect((await prompt).stopReason).toBe('cancelled');
    });
    const tools = (api.requests[0]?.body?.tools ?? []).map((tool: { name: string }) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['mcp__every__get-sum', 'mcp__s__slow']));
    // The editor saw the call complete, with the server's answer in the update's content.
    const sum = editor.updates
      .map(({ update }) => update)
      .find(
        (update) =>
          update.sessionUpdate === 'tool_call_update' &&
          update.toolCallId === 'e1' &&
          update.status === 'completed',
      );
    expect(JSON.stringify(sum)).toContain('The sum of 19 and 23 is 42.');
    const log = await logLines(events);
    const requestId = log.find((line) => line.startsWith('slow started'))?.split(' ')[2];
    const cancelled = async () =>
      (await logLines(events)).some((line) => line.startsWith(`cancelled ${requestId} `));
    expect(await eventually(cancelled, 10_000)).toBe(true);
    expect(await logLines(events)).not.toContain('slow finished');
    await editor[Symbol.asyncDispose]();
    expect(await eventually(async () => (await pidsWithMarker(marker)).length === 0)).toBe(true);
  }, 120_000);
});
