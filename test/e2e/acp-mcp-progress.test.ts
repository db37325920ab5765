import path from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { startAcpEditor } from '../support/acp-editor.js';
import { toolCall as call, cliEnv } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const SLOW_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'slow-server.mjs');

const reply = (text: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text }] });

describe("an MCP call's progress in ACP (#22)", () => {
  it('the editor gets tool_call_update content with the latest progress while the call runs, then the result', async () => {
    await using home = await hostDir('acp-mcp-progress-home-');
    await using ws = await hostDir('acp-mcp-progress-ws-');
    await writeSkateSettings(home.path, {
      mcpServers: { s: { command: process.execPath, args: [SLOW_SERVER] } },
    });
    await using api = await fakeMessagesApi([
      call('p1', 'mcp__s__progress', { steps: 6, intervalMs: 300, message: 'indexing' }),
      reply('Indexed.'),
    ]);
    const env = cliEnv({ home: home.path, api: api.url, key: 'sk-ant-test-key-for-acp' });
    await using editor = startAcpEditor(['--approval', 'auto'], env, ws.path);
    await editor.run(async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] });
      const done = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'index' }],
      });
      expect(done.stopReason, editor.stderr()).toBe('end_turn');
    });
    interface CallUpdate {
      sessionUpdate: string;
      toolCallId?: string;
      status?: string;
      content?: { type: string; content?: { type: string; text?: string } }[];
    }
    const updates = editor.updates
      .map(({ update }) => update as CallUpdate)
      .filter((update) => update.sessionUpdate === 'tool_call_update' && update.toolCallId === 'p1');
    const texts = (status: string): string[] =>
      updates
        .filter((update) => update.status === status)
        .flatMap((update) => update.content ?? [])
        .map((content) => content.content?.text ?? '');
    const progress = texts('in_progress').filter((text) => /^\d\/6 indexing \d$/.test(text));
    expect(progress.length, JSON.stringify(updates)).toBeGreaterThanOrEqual(3);
    const steps = progress.map((text) => Number(text[0]));
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(texts('completed').join('\n')).toContain('progress done');
    // Every progress update came before the completion.
    const completedAt = updates.findIndex((update) => update.status === 'completed');
    const lastProgressAt = updates.findLastIndex((update) => JSON.stringify(update).includes('/6 indexing'));
    expect(lastProgressAt).toBeLessThan(completedAt);
  }, 120_000);
});
