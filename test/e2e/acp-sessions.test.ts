import { existsSync } from 'node:fs';
import path from 'node:path';
import { methods, type SessionNotification } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { startAcpEditor } from '../support/acp-editor.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';

function agentEnv(baseUrl: string): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-test-key-for-acp', ANTHROPIC_BASE_URL: baseUrl };
}

const reply = (text: string) => ({ type: 'message' as const, blocks: [{ type: 'text' as const, text }] });

/** The text of one kind of chunk, for one session, in order. */
function chunks(updates: SessionNotification[], sessionId: string, kind: string): string {
  let joined = '';
  for (const { sessionId: id, update } of updates) {
    if (id !== sessionId || update.sessionUpdate !== kind || !('content' in update)) continue;
    const content = update.content as { type?: string; text?: string } | undefined;
    if (content?.type === 'text') joined += content.text ?? '';
  }
  return joined;
}

// Workspaces outside /tmp, as in acp.test.ts: sandboxes get a private /tmp.
describe('skate acp sessions, driven by the ACP SDK client as an editor would', () => {
  it('lists the sessions of the workspace after two prompts, newest first, titled by their prompts; deletes one', async () => {
    await using ws = await hostDir('acp-list-');
    await using api = await fakeMessagesApi([reply('First answer.'), reply('Second answer.')]);
    await using editor = startAcpEditor([], agentEnv(api.url));
    const { ids, listed } = await editor.run(async (ctx) => {
      const ids: string[] = [];
      for (const text of ['Rename the parser module.', 'Now add tests for it.']) {
        const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] });
        await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
        ids.push(sessionId);
      }
      const listed = await ctx.request(methods.agent.session.list, { cwd: ws.path });
      // The older one is still open here (idle): deleting it stops its agent, then removes its log.
      await ctx.request(methods.agent.session.delete, { sessionId: ids[0]! });
      const afterDelete = await ctx.request(methods.agent.session.list, { cwd: ws.path });
      expect(afterDelete.sessions.map((s) => s.sessionId)).toEqual([ids[1]]);
      return { ids, listed };
    });
    expect(existsSync(path.join(ws.path, '.skate', 'sessions', `${ids[0]}.jsonl`))).toBe(false);
    expect(existsSync(path.join(ws.path, '.skate', 'sessions', `${ids[1]}.jsonl`))).toBe(true);
    expect(
      listed.sessions.map((s) => s.sessionId),
      editor.stderr(),
    ).toEqual([ids[1], ids[0]]);
    expect(listed.sessions.map((s) => s.title)).toEqual([
      'Now add tests for it.',
      'Rename the parser module.',
    ]);
    expect(listed.sessions.every((s) => s.cwd === ws.path && s.updatedAt)).toBe(true);
  });

  it('forks a session, and a later editor loads the fork: its history, then a prompt that carries it', async () => {
    await using ws = await hostDir('acp-fork-');
    await using api = await fakeMessagesApi([reply('Noted: the port is 8080.'), reply('It was 8080.')]);
    let source = '';
    let fork = '';
    {
      await using first = startAcpEditor([], agentEnv(api.url));
      await first.run(async (ctx) => {
        ({ sessionId: source } = await ctx.request(methods.agent.session.new, {
          cwd: ws.path,
          mcpServers: [],
        }));
        await ctx.request(methods.agent.session.prompt, {
          sessionId: source,
          prompt: [{ type: 'text', text: 'The port is 8080.' }],
        });
        ({ sessionId: fork } = await ctx.request<{ sessionId: string }>('session/fork', {
          sessionId: source,
          cwd: ws.path,
        }));
      });
      expect(fork, first.stderr()).not.toBe(source);
    }
    await using second = startAcpEditor([], agentEnv(api.url));
    const stopReason = await second.run(async (ctx) => {
      const listed = await ctx.request(methods.agent.session.list, { cwd: ws.path });
      expect(listed.sessions.map((s) => s.sessionId)).toContain(fork);
      await ctx.request(methods.agent.session.load, { sessionId: fork, cwd: ws.path, mcpServers: [] });
      expect(chunks(second.updates, fork, 'user_message_chunk')).toBe('The port is 8080.');
      expect(chunks(second.updates, fork, 'agent_message_chunk')).toBe('Noted: the port is 8080.');
      return (
        await ctx.request(methods.agent.session.prompt, {
          sessionId: fork,
          prompt: [{ type: 'text', text: 'Which port?' }],
        })
      ).stopReason;
    });
    expect(stopReason, second.stderr()).toBe('end_turn');
    const sent = JSON.stringify(api.requests[1]?.body?.messages);
    expect(sent).toContain('The port is 8080.');
    expect(sent).toContain('Which port?');
  });

  it('a /compact prompt compacts the conversation: the next request carries the summary, not the old messages', async () => {
    await using ws = await hostDir('acp-compact-');
    await using api = await fakeMessagesApi([
      reply('The build uses esbuild.'),
      reply('- The user asked about the build; it uses esbuild.'),
      reply('Yes, esbuild.'),
    ]);
    await using editor = startAcpEditor([], agentEnv(api.url));
    const { sessionId, stopReason } = await editor.run(async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] });
      await editor.waitForUpdate((n) => n.update.sessionUpdate === 'available_commands_update');
      const say = async (text: string) =>
        (await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] }))
          .stopReason;
      await say('What does the build use? Remember QUOKKA.');
      const stopReason = await say('/compact');
      await say('Still esbuild?');
      return { sessionId, stopReason };
    });
    expect(stopReason, editor.stderr()).toBe('end_turn');
    expect(api.requests).toHaveLength(3);
    // The second request is the summary's: no tools, the transcript to summarise.
    expect(api.requests[1]?.body?.tools ?? []).toEqual([]);
    expect(JSON.stringify(api.requests[1]?.body?.messages)).toContain('QUOKKA');
    const after = JSON.stringify(api.requests[2]?.body?.messages);
    expect(after).toContain('it uses esbuild.');
    expect(after).not.toContain('QUOKKA');
    expect(chunks(editor.updates, sessionId, 'agent_message_chunk')).toMatch(/Compacted the conversation/);
  });

  it('switching the model (config option, then /model) reaches the next request to the API', async () => {
    await using ws = await hostDir('acp-model-');
    await using api = await fakeMessagesApi([reply('one'), reply('two'), reply('three')]);
    await using editor = startAcpEditor(['--model', 'claude-sonnet-5-5'], agentEnv(api.url));
    const optionsAfter = await editor.run(async (ctx) => {
      const { sessionId, configOptions } = await ctx.request(methods.agent.session.new, {
        cwd: ws.path,
        mcpServers: [],
      });
      expect(configOptions?.find((o) => o.id === 'model')?.currentValue).toBe('claude-sonnet-5-5');
      const say = (text: string) =>
        ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
      await say('first');
      const set = await ctx.request(methods.agent.session.setConfigOption, {
        sessionId,
        configId: 'model',
        value: 'claude-haiku-4-5',
      });
      await say('second');
      await say('/model claude-opus-4-6');
      await say('third');
      return set.configOptions;
    });
    expect(optionsAfter.find((o) => o.id === 'model')?.currentValue).toBe('claude-haiku-4-5');
    expect(
      api.requests.map((r) => r.body?.model),
      editor.stderr(),
    ).toEqual(['claude-sonnet-5-5', 'claude-haiku-4-5', 'claude-opus-4-6']);
    expect(
      editor.updates.some(
        (n) =>
          n.update.sessionUpdate === 'config_option_update' &&
          n.update.configOptions.some((o) => o.id === 'model' && o.currentValue === 'claude-opus-4-6'),
      ),
    ).toBe(true);
  });
});
