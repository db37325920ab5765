import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { methods, type SessionNotification } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { listPage } from '../../../harness/acp/session-listing.js';
import { sessionFile } from '../../../harness/session/session-paths.js';
import { listSessions } from '../../../harness/session/session-store.js';
import { createSessionWriter } from '../../../harness/session/session-writer.js';
import { tempDir } from '../../support/temp-dir.js';
import { asEditor, closeLive, scriptedAgent, select } from './scripted-acp.js';

afterEach(closeLive);

/** A real session log in `workspace` whose first prompt is `prompt`; returns its id. */
async function storedSession(workspace: string, prompt: string, parentSessionId?: string): Promise<string> {
  const writer = await createSessionWriter({
    workspace,
    model: 'claude-test',
    policy: 'execute',
    ...(parentSessionId && { parentSessionId }),
  });
  writer.append({
    type: 'user_message',
    message: { role: 'user', content: [{ type: 'text', text: prompt }] },
  });
  await writer.close();
  // Distinct last-activity times, so "newest first" is not decided by the tie-breaker alone.
  await sleep(5);
  return writer.header.id;
}

const idle = () => scriptedAgent(async () => ({ status: 'complete' }));

function agentText(updates: SessionNotification[]): string {
  return updates
    .flatMap((n) =>
      n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text'
        ? [n.update.content.text]
        : [],
    )
    .join('');
}

describe('skate acp: session/list', () => {
  it("lists the cwd's top-level sessions newest first, titled by their first prompt", async () => {
    await using ws = await tempDir();
    const older = await storedSession(ws.path, 'Fix the parser\nIt fails on empty input.');
    const newer = await storedSession(ws.path, `Write ${'a very long task description '.repeat(10)}`);
    await storedSession(ws.path, 'a sub-agent task', newer);
    await asEditor([], select('allow_once'), async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1 });
      expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ list: {}, delete: {}, fork: {} });
      const listed = await ctx.request(methods.agent.session.list, { cwd: ws.path });
      expect(listed.sessions.map((s) => s.sessionId)).toEqual([newer, older]);
      expect(listed.nextCursor).toBeUndefined();
      expect(listed.sessions[1]?.cwd).toBe(ws.path);
      expect(listed.sessions[1]?.title).toMatch(/^Fix the parser/);
      expect(listed.sessions[0]?.title?.length).toBeLessThanOrEqual(80);
      expect(listed.sessions[0]?.title).toMatch(/^Write a very long task.*…$/);
      expect(Date.parse(listed.sessions[0]?.updatedAt ?? '')).toBeGreaterThan(
        Date.parse(listed.sessions[1]?.updatedAt ?? ''),
      );
    });
  });

  it('pages by a cursor naming the last session shown, so a session started between pages repeats nothing', async () => {
    await using ws = await tempDir();
    const ids = [];
    for (const prompt of ['one', 'two', 'three']) ids.push(await storedSession(ws.path, prompt));
    const first = listPage((await listSessions(ws.path)).sessions, undefined, 2);
    expect(first.sessions.map((s) => s.title)).toEqual(['three', 'two']);
    expect(first.nextCursor).toEqual(expect.any(String));
    await storedSession(ws.path, 'four');
    const second = listPage((await listSessions(ws.path)).sessions, first.nextCursor, 2);
    expect(second.sessions.map((s) => s.title)).toEqual(['one']);
    expect(second.nextCursor).toBeUndefined();
  });

  it('uses the directory skate acp started in without a cwd, and refuses a cursor it did not give', async () => {
    await using ws = await tempDir();
    const id = await storedSession(ws.path, 'hello');
    await asEditor(
      [],
      select('allow_once'),
      async (ctx) => {
        const listed = await ctx.request(methods.agent.session.list, {});
        expect(listed.sessions.map((s) => s.sessionId)).toEqual([id]);
        await expect(
          ctx.request(methods.agent.session.list, { cwd: ws.path, cursor: 'bogus' }),
        ).rejects.toThrow(/unknown cursor/);
      },
      { defaultCwd: ws.path },
    );
  });
});

describe('skate acp: session/delete', () => {
  it("deletes a listed session's log and its sub-agents' logs, and leaves the others", async () => {
    await using ws = await tempDir();
    const kept = await storedSession(ws.path, 'keep me');
    const doomed = await storedSession(ws.path, 'delete me');
    const child = await storedSession(ws.path, 'its sub-agent', doomed);
    await asEditor([], select('allow_once'), async (ctx) => {
      await ctx.request(methods.agent.session.list, { cwd: ws.path });
      await ctx.request(methods.agent.session.delete, { sessionId: doomed });
      const listed = await ctx.request(methods.agent.session.list, { cwd: ws.path });
      expect(listed.sessions.map((s) => s.sessionId)).toEqual([kept]);
    });
    expect(existsSync(sessionFile(ws.path, doomed))).toBe(false);
    expect(existsSync(sessionFile(ws.path, child))).toBe(false);
    expect(existsSync(sessionFile(ws.path, kept))).toBe(true);
  });

  it('refuses a session running a prompt, closes an idle open one first, and refuses one another process holds', async () => {
    await using ws = await tempDir();
    const running = await storedSession(ws.path, 'busy');
    const held = await storedSession(ws.path, 'held elsewhere');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const agent = scriptedAgent(
      async () => {
        await gate;
        return { status: 'complete' };
      },
      { id: running, workspace: ws.path },
    );
    // A live process other than this one holds the session's lock (a terminal UI, say).
    await writeFile(`${sessionFile(ws.path, held)}.lock`, `${process.ppid}\n`);
    await asEditor([agent], select('allow_once'), async (ctx) => {
      await ctx.request(methods.agent.session.resume, { sessionId: running, cwd: ws.path });
      const prompt = ctx.request(methods.agent.session.prompt, {
        sessionId: running,
        prompt: [{ type: 'text', text: 'go' }],
      });
      await expect(ctx.request(methods.agent.session.delete, { sessionId: running })).rejects.toThrow(
        /running a prompt; cancel it/,
      );
      expect(existsSync(sessionFile(ws.path, running))).toBe(true);
      release();
      await prompt;
      await ctx.request(methods.agent.session.delete, { sessionId: running });
      expect(agent.closed).toBe(true);
      expect(existsSync(sessionFile(ws.path, running))).toBe(false);

      await ctx.request(methods.agent.session.list, { cwd: ws.path });
      await expect(ctx.request(methods.agent.session.delete, { sessionId: held })).rejects.toThrow(
        new RegExp(`in use by process ${process.ppid}`),
      );
      expect(existsSync(sessionFile(ws.path, held))).toBe(true);
    });
  });
});

describe('skate acp: session/fork', () => {
  it('forks an open session through its agent, and a stored one through a new agent, each announcing its commands', async () => {
    const forked = idle();
    Object.assign(forked, { sessionId: 'forked-open' });
    const source = scriptedAgent(async () => ({ status: 'complete' }), { forked: () => forked });
    const fromDisk = scriptedAgent(async () => ({ status: 'complete' }), { id: 'forked-stored' });
    await asEditor([source, fromDisk], select('allow_once'), async (ctx, editor) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      const fork = await ctx.request<{ sessionId: string; configOptions: unknown[] }>('session/fork', {
        sessionId,
        cwd: process.cwd(),
      });
      expect(fork.sessionId).toBe('forked-open');
      expect(fork.configOptions).toHaveLength(3);
      const stored = await ctx.request<{ sessionId: string }>('session/fork', {
        sessionId: 'not-open-here',
        cwd: process.cwd(),
      });
      expect(stored.sessionId).toBe('forked-stored');
      expect(editor.opened.map((request) => request.session)).toEqual([
        { kind: 'new' },
        { kind: 'fork', id: 'not-open-here' },
      ]);
      await ctx.request(methods.agent.session.prompt, {
        sessionId: 'forked-open',
        prompt: [{ type: 'text', text: 'on the fork' }],
      });
      expect(forked.prompts).toEqual(['on the fork']);
      expect(source.prompts).toEqual([]);
      await expect(ctx.request('session/fork', { sessionId })).rejects.toThrow(/cwd/);
      // Each list goes out after the response that names the session (a later turn of the event loop).
      await sleep(10);
      expect(new Set(editor.commands.map((n) => n.sessionId))).toEqual(
        new Set([sessionId, 'forked-open', 'forked-stored']),
      );
    });
  });
});

describe('skate acp: config options and commands', () => {
  it('offers the model and the mode as config options and switches them through the agent', async () => {
    const agent = idle();
    await asEditor([agent], select('allow_once'), async (ctx) => {
      const created = await ctx.request(methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
      const [mode, model] = created.configOptions ?? [];
      expect(mode).toMatchObject({ id: 'mode', category: 'mode', currentValue: 'execute' });
      expect(model).toMatchObject({
        id: 'model',
        category: 'model',
        type: 'select',
        currentValue: 'claude-test',
      });
      const values = model?.type === 'select' ? model.options.map((o) => ('value' in o ? o.value : '')) : [];
      // The current model (not in Skate's list) is offered, and so are listed ones, deprecated ones left out.
      expect(values[0]).toBe('claude-test');
      expect(values).toContain('claude-haiku-4-5');
      expect(values).not.toContain('claude-sonnet-4-5');

      const after = await ctx.request(methods.agent.session.setConfigOption, {
        sessionId: created.sessionId,
        configId: 'model',
        value: 'claude-haiku-4-5',
      });
      expect(agent.commands).toEqual([{ type: 'set_model', model: 'claude-haiku-4-5' }]);
      expect(after.configOptions.find((o) => o.id === 'model')?.currentValue).toBe('claude-haiku-4-5');
      await ctx.request(methods.agent.session.setConfigOption, {
        sessionId: created.sessionId,
        configId: 'mode',
        value: 'plan',
      });
      expect(agent.modes).toEqual(['plan']);
      await expect(
        ctx.request(methods.agent.session.setConfigOption, {
          sessionId: created.sessionId,
          configId: 'model',
          value: 'gpt-9',
        }),
      ).rejects.toThrow(/gpt-9 is not a value of model/);
      await expect(
        ctx.request(methods.agent.session.setConfigOption, {
          sessionId: created.sessionId,
          configId: 'temperature',
          value: 'hot',
        }),
      ).rejects.toThrow(/unknown config option temperature/);
    });
  });

  it('announces /compact, /clear and /model after session/new and session/load', async () => {
    const agents = [idle(), scriptedAgent(async () => ({ status: 'complete' }), { id: 'old' })];
    await asEditor(agents, select('allow_once'), async (ctx, editor) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      await ctx.request(methods.agent.session.load, { sessionId: 'old', cwd: process.cwd(), mcpServers: [] });
      // The load's list came before load answered; the new session's once its response was out.
      expect(editor.commands.map((n) => n.sessionId)).toContain('old');
      await sleep(10);
      expect(new Set(editor.commands.map((n) => n.sessionId))).toEqual(new Set([sessionId, 'old']));
      const update = editor.commands[0]?.update;
      const names = update?.sessionUpdate === 'available_commands_update' ? update.availableCommands : [];
      expect(names.map((c) => c.name)).toEqual(['clear', 'compact', 'model']);
      expect(names.find((c) => c.name === 'model')?.input).toEqual({ hint: 'a model name' });
    });
  });

  it('carries out a prompt that is a command instead of sending it to the model', async () => {
    const agent = idle();
    await asEditor([agent], select('allow_once'), async (ctx, editor) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      const say = async (text: string) =>
        (await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] }))
          .stopReason;
      expect(await say('/compact')).toBe('end_turn');
      expect(await say('  /model claude-haiku-4-5 ')).toBe('end_turn');
      expect(await say('/clear')).toBe('end_turn');
      expect(agent.commands).toEqual([
        { type: 'compact' },
        { type: 'set_model', model: 'claude-haiku-4-5' },
        { type: 'clear' },
      ]);
      expect(
        editor.updates.find((n) => n.update.sessionUpdate === 'config_option_update')?.update,
      ).toMatchObject({
        configOptions: [{ id: 'mode' }, { id: 'model', currentValue: 'claude-haiku-4-5' }, { id: 'network' }],
      });
      expect(await say('/model')).toBe('end_turn');
      expect(await say('/compact now please')).toBe('end_turn');
      expect(agentText(editor.updates)).toContain('/model needs a model name');
      expect(agentText(editor.updates)).toContain('/compact takes no argument');
      expect(agent.commands).toHaveLength(3);
      // Not a command Skate offers here: the model gets it as typed.
      await say('/usr/bin is missing');
      await say('/resume abc');
      expect(agent.prompts).toEqual(['/usr/bin is missing', '/resume abc']);
    });
  });

  it('sends config_option_update when the network changes under a prompt, and not for a change the client asked for', async () => {
    // The runtime changes the list mid-prompt, as an answered network question does.
    let agent!: ReturnType<typeof scriptedAgent>;
    agent = scriptedAgent(
      async () => {
        await agent.setNetwork({ allow: ['example.com', 'api.test'], deny: [] });
        // The same list again is no change the client needs to hear of.
        await agent.setNetwork({ allow: ['example.com', 'api.test'], deny: [] });
        return { status: 'complete' };
      },
      { network: { mode: 'allowlist', allow: ['example.com'], deny: [] } },
    );
    await asEditor([agent], select('allow_once'), async (ctx, editor) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      const networkUpdates = (): string[] =>
        editor.updates.flatMap((n) =>
          n.update.sessionUpdate === 'config_option_update'
            ? [JSON.stringify(n.update.configOptions.find((option) => option.id === 'network'))]
            : [],
        );
      await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] });
      // Out before the prompt's response: one update, naming the host that joined.
      expect(networkUpdates()).toHaveLength(1);
      expect(networkUpdates()[0]).toContain('api.test');
      expect(networkUpdates()[0]).toContain('"currentValue":"allowlist"');
      // Asked by the client: its response carries the options, no update follows.
      const set = await ctx.request(methods.agent.session.setConfigOption, {
        sessionId,
        configId: 'network',
        value: 'on',
      });
      expect(set.configOptions.find((option) => option.id === 'network')?.currentValue).toBe('on');
      await sleep(10);
      expect(networkUpdates()).toHaveLength(1);
    });
  });

  it('session/cancel during /compact ends it cancelled', async () => {
    let started!: () => void;
    const compacting = new Promise<void>((resolve) => {
      started = resolve;
    });
    const agent = scriptedAgent(async () => ({ status: 'complete' }), {
      onCommand: async (_command, signal) => {
        started();
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        return undefined;
      },
    });
    await asEditor([agent], select('allow_once'), async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      const prompt = ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: '/compact' }],
      });
      await compacting;
      await ctx.notify(methods.agent.session.cancel, { sessionId });
      expect((await prompt).stopReason).toBe('cancelled');
    });
  });
});
