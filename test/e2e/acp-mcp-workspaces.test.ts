import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { startAcpEditor } from '../support/acp-editor.js';
import { cliEnv } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');

const calls = (...named: [string, string, Record<string, unknown>][]): FakeReply => ({
  type: 'message',
  blocks: named.map(([id, name, input]) => ({ type: 'tool_use' as const, id, name, input })),
  stopReason: 'tool_use',
});
const reply = (text: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text }] });

// Workspaces outside /tmp, as in acp.test.ts: sandboxes get a private /tmp.
describe('skate acp and the MCP servers of your settings', () => {
  it("runs them for each session under that session's workspace policy, not the directory skate acp started in", async () => {
    await using home = await hostDir('acp-mcp-ws-home-');
    await using origin = await hostDir('acp-mcp-origin-');
    await using first = await hostDir('acp-mcp-first-');
    await using second = await hostDir('acp-mcp-second-');
    for (const dir of [origin.path, first.path, second.path]) await mkdir(path.join(dir, 'out'));
    await mkdir(path.join(home.path, '.skate'));
    // A server that may write `out`, relative to the workspace it serves.
    const mcpServers = {
      notes: { command: process.execPath, args: [TEST_SERVER], policy: { write: ['out'] } },
    };
    await writeFile(path.join(home.path, '.skate', 'settings.json'), JSON.stringify({ mcpServers }));
    const touch = (dir: string, name: string) => ({ path: path.join(dir, 'out', name) });
    await using api = await fakeMessagesApi([
      calls(['f1', 'mcp__notes__touch', touch(first.path, 'first.txt')]),
      reply('Written.'),
      calls(
        ['s1', 'mcp__notes__touch', touch(second.path, 'second.txt')],
        ['s2', 'mcp__notes__touch', touch(first.path, 'from-second.txt')],
      ),
      reply('Tried both.'),
    ]);
    const env = cliEnv({ home: home.path, api: api.url, key: 'sk-ant-test-key-for-acp-workspaces' });
    await using editor = startAcpEditor(['--approval', 'auto'], env, origin.path);
    await editor.run(async (ctx) => {
      await ctx.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      for (const ws of [first.path, second.path]) {
        const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws, mcpServers: [] });
        const done = await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'write your file' }],
        });
        expect(done.stopReason, editor.stderr()).toBe('end_turn');
      }
    });
    // Each session's server wrote its own workspace's `out`, and only that one.
    expect(existsSync(path.join(first.path, 'out', 'first.txt')), editor.stderr()).toBe(true);
    expect(existsSync(path.join(second.path, 'out', 'second.txt'))).toBe(true);
    expect(existsSync(path.join(first.path, 'out', 'from-second.txt'))).toBe(false);
    expect(readdirSync(path.join(origin.path, 'out'))).toEqual([]);
    const results = (api.requests.at(-1)?.body?.messages ?? []).flatMap((message) =>
      Array.isArray(message.content) ? (message.content as { type: string; tool_use_id?: string }[]) : [],
    );
    expect(results.find((block) => block.tool_use_id === 's1')).toMatchObject({ is_error: false });
    expect(results.find((block) => block.tool_use_id === 's2')).toMatchObject({
      is_error: true,
      content: expect.stringContaining('read-only file system'),
    });
  }, 120_000);
});
