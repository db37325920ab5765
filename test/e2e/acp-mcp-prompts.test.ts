import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type AvailableCommand, methods } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { startAcpEditor } from '../support/acp-editor.js';
import { cliEnv } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';

const PROMPTS_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'prompts-server.mjs');
const reply = (text: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text }] });

/** The text of a request's last user message. */
function lastUserText(body: unknown): string {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.filter((m) => m.role === 'user').at(-1)!;
  if (typeof last.content === 'string') return last.content;
  return (last.content as { type: string; text?: string }[])
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

// Workspaces outside /tmp, as in acp.test.ts: sandboxes get a private /tmp.
describe('skate acp offers MCP prompts as commands', () => {
  it("advertises a server's prompts with their arguments as the hint, runs one as the prompt, says what is missing, and leaves out a workspace server without consent", async () => {
    await using home = await hostDir('acp-prompts-home-');
    await using ws = await hostDir('acp-prompts-ws-');
    // A workspace's server: headless (ACP), it is not used without consent, prompts included.
    await writeFile(
      path.join(ws.path, '.mcp.json'),
      JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [PROMPTS_SERVER] } } }),
    );
    await using api = await fakeMessagesApi([reply('Reviewed.')]);
    const env = cliEnv({ home: home.path, api: api.url, key: 'sk-ant-test-key-for-acp' });
    await using editor = startAcpEditor(['--approval', 'auto'], env);
    await editor.run(async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: ws.path,
        mcpServers: [{ name: 'p', command: process.execPath, args: [PROMPTS_SERVER], env: [] }],
      });
      const announced = await editor.waitForUpdate(
        (n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update',
      );
      const commands = (announced.update as { availableCommands: AvailableCommand[] }).availableCommands;
      expect(commands).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'compact' }),
          {
            name: 'mcp__p__review',
            description: 'Review a file for bugs.',
            input: { hint: '<file> [focus]' },
          },
          { name: 'mcp__p__brief', description: 'The team brief.' },
        ]),
      );
      expect(commands.some((c) => c.name.startsWith('mcp__proj__'))).toBe(false);
      // Missing its required argument: said to the editor, and no model request.
      const missing = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: '/mcp__p__review' }],
      });
      expect(missing.stopReason).toBe('end_turn');
      expect(api.requests).toHaveLength(0);
      const said = editor.updates
        .map(({ update }) => update)
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => (u as { content: { text?: string } }).content.text)
        .join('');
      expect(said).toContain('/mcp__p__review <file> [focus]: missing file');
      const ran = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: '/mcp__p__review lib/db.ts "SQL injection"' }],
      });
      expect(ran.stopReason, editor.stderr()).toBe('end_turn');
    });
    expect(api.requests).toHaveLength(1);
    expect(lastUserText(api.requests[0]?.body)).toContain(
      'PROMPT-REVIEW: review lib/db.ts focusing on SQL injection.',
    );
  }, 120_000);
});
