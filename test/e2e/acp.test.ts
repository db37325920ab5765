import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { methods, type SessionNotification, type SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { startAcpEditor } from '../support/acp-editor.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { planModeReplies } from '../support/plan-mode-replies.js';
import { processDescendants } from '../support/process-descendants.js';

const KEY = 'sk-ant-test-key-for-acp';

function agentEnv(baseUrl: string): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: baseUrl };
}

type ToolCallUpdate = Extract<SessionUpdate, { sessionUpdate: 'tool_call' | 'tool_call_update' }>;

/** Every update about one tool call, creation first. */
function callUpdates(updates: SessionNotification[], id: string): ToolCallUpdate[] {
  return updates.flatMap((n) =>
    (n.update.sessionUpdate === 'tool_call' || n.update.sessionUpdate === 'tool_call_update') &&
    n.update.toolCallId === id
      ? [n.update]
      : [],
  );
}

function lastStatus(updates: SessionNotification[], id: string): string | undefined {
  return callUpdates(updates, id)
    .map((update) => update.status)
    .filter(Boolean)
    .at(-1) as string | undefined;
}

function text(updates: SessionNotification[], kind: SessionUpdate['sessionUpdate']): string {
  let joined = '';
  for (const { update } of updates) {
    if (update.sessionUpdate !== kind || !('content' in update)) continue;
    const content = update.content as { type?: string; text?: string } | undefined;
    if (content?.type === 'text') joined += content.text ?? '';
  }
  return joined;
}

// Workspaces outside /tmp: sandboxes get a private /tmp, so the host could not see writes there.
describe('skate acp, driven by the ACP SDK client as an editor would', () => {
  it('runs a prompt that reads, edits and runs a command, asking before the edit and the command', async () => {
    await using ws = await hostDir('acp-edit-');
    await writeFile(path.join(ws.path, 'greeting.txt'), 'hello world\n');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'tu_read', name: 'read_file', input: { path: 'greeting.txt' } }],
      },
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_edit',
            name: 'edit_file',
            input: { path: 'greeting.txt', old_string: 'world', new_string: 'editor' },
          },
        ],
      },
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'tu_run', name: 'shell', input: { command: 'cat greeting.txt' } }],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Changed the greeting.' }] },
    ]);
    await using editor = startAcpEditor([], agentEnv(api.url));
    const stopReason = await editor.run(async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] });
      const response = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'Greet the editor.' }],
      });
      return response.stopReason;
    });
    expect(stopReason, editor.stderr()).toBe('end_turn');
    expect(await readFile(path.join(ws.path, 'greeting.txt'), 'utf8')).toBe('hello editor\n');

    const { updates } = editor;
    expect(callUpdates(updates, 'tu_read')[0]).toMatchObject({
      kind: 'read',
      status: 'pending',
      locations: [{ path: path.join(ws.path, 'greeting.txt') }],
    });
    expect(lastStatus(updates, 'tu_read')).toBe('completed');
    const edit = callUpdates(updates, 'tu_edit');
    expect(edit[0]).toMatchObject({ kind: 'edit', title: 'Edit greeting.txt' });
    expect(edit.at(-1)).toMatchObject({
      status: 'completed',
      content: [
        {
          type: 'diff',
          path: path.join(ws.path, 'greeting.txt'),
          oldText: 'hello world',
          newText: 'hello editor',
        },
      ],
    });
    const run = callUpdates(updates, 'tu_run');
    expect(run[0]).toMatchObject({ kind: 'execute', title: 'Run `cat greeting.txt`' });
    expect(lastStatus(updates, 'tu_run')).toBe('completed');
    expect(JSON.stringify(run.at(-1)?.content)).toContain('hello editor');
    // The read ran without asking; the edit and the command each asked once.
    expect(editor.permissions.map((p) => p.toolCall.toolCallId)).toEqual(['tu_edit', 'tu_run']);
    expect(editor.permissions[0]?.options.map((o) => o.kind)).toEqual([
      'allow_once',
      'allow_always',
      'reject_once',
      'reject_always',
    ]);
    expect(text(updates, 'agent_message_chunk')).toBe('Changed the greeting.');
  });

  it('a rejected permission leaves the host untouched and tells the model', async () => {
    await using ws = await hostDir('acp-reject-');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'tu_touch', name: 'shell', input: { command: 'touch made-it' } }],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Understood.' }] },
    ]);
    await using editor = startAcpEditor([], agentEnv(api.url));
    editor.choices.push('reject_once');
    const stopReason = await editor.run(async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] });
      return (
        await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'touch it' }],
        })
      ).stopReason;
    });
    expect(stopReason, editor.stderr()).toBe('end_turn');
    expect(existsSync(path.join(ws.path, 'made-it'))).toBe(false);
    expect(lastStatus(editor.updates, 'tu_touch')).toBe('failed');
    expect(JSON.stringify(api.requests[1]?.body?.messages.at(-1))).toContain('rejected');
  });

  it('session/cancel mid-command ends the turn cancelled and leaves no process running', async () => {
    await using ws = await hostDir('acp-cancel-');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_sleep',
            name: 'shell',
            input: { command: 'echo started; sleep 30; touch too-late' },
          },
        ],
      },
    ]);
    await using editor = startAcpEditor(['--approval', 'auto'], agentEnv(api.url));
    const started = performance.now();
    const stopReason = await editor.run(async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] });
      const prompt = ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'sleep' }],
      });
      // The command is running once its first line came back.
      await editor.waitForUpdate(
        (n) =>
          n.update.sessionUpdate === 'tool_call_update' &&
          JSON.stringify(n.update.content ?? '').includes('started'),
      );
      await ctx.notify(methods.agent.session.cancel, { sessionId });
      return (await prompt).stopReason;
    });
    expect(stopReason, editor.stderr()).toBe('cancelled');
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(lastStatus(editor.updates, 'tu_sleep')).toBe('failed');
    // Only the executor is left below skate acp (no sleep), and it goes when the editor disconnects.
    const left = await processDescendants(editor.child.pid!);
    const { commandLine } = await import('../support/process-descendants.js');
    const lines = await Promise.all(left.map(commandLine));
    expect(lines.filter((line) => line.includes('sleep 30'))).toEqual([]);
    await editor[Symbol.asyncDispose]();
    expect(existsSync(path.join(ws.path, 'too-late'))).toBe(false);
  });

  it('switches to plan mode: a fresh agent under the plan policy, whose write outside the plan the kernel refuses', async () => {
    await using ws = await hostDir('acp-plan-');
    const plan = '# Plan\n\n1. Add the table.\n2. [x] Read the schema.\n';
    await using api = await fakeMessagesApi(planModeReplies(plan));
    await using editor = startAcpEditor([], agentEnv(api.url));
    const stopReason = await editor.run(async (ctx) => {
      const { sessionId, modes } = await ctx.request(methods.agent.session.new, {
        cwd: ws.path,
        mcpServers: [],
      });
      expect(modes?.currentModeId).toBe('execute');
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'plan' });
      expect(editor.updates.at(-2)?.update).toEqual({
        sessionUpdate: 'current_mode_update',
        currentModeId: 'plan',
      });
      expect(editor.updates.at(-1)?.update).toMatchObject({
        sessionUpdate: 'config_option_update',
        configOptions: [
          { id: 'mode', currentValue: 'plan' },
          { id: 'model' },
          { id: 'network', currentValue: 'off' },
        ],
      });
      return (
        await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'plan a table' }],
        })
      ).stopReason;
    });
    expect(stopReason, editor.stderr()).toBe('end_turn');
    // The user allowed the command; the kernel refused the write all the same.
    expect(editor.permissions.map((p) => p.toolCall.toolCallId)).toContain('tu_escape');
    expect(existsSync(path.join(ws.path, 'outside.txt'))).toBe(false);
    expect(lastStatus(editor.updates, 'tu_escape')).toBe('failed');
    expect(JSON.stringify(callUpdates(editor.updates, 'tu_escape').at(-1))).toMatch(/Read-only file system/);
    expect(await readFile(path.join(ws.path, '.skate', 'plan.md'), 'utf8')).toBe(plan);
    const planUpdate = editor.updates.map((n) => n.update).find((update) => update.sessionUpdate === 'plan');
    expect(planUpdate).toEqual({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Add the table.', priority: 'medium', status: 'pending' },
        { content: 'Read the schema.', priority: 'medium', status: 'completed' },
      ],
    });
    expect(JSON.stringify(api.requests[0]?.body?.system)).toContain('Planning mode');
  });

  it('back to execute: a fresh agent carrying the plan, or the earlier conversation when no plan was written', async () => {
    await using ws = await hostDir('acp-modes-');
    const plan = '# Plan\n\n- Rename the module.\n';
    await using api = await fakeMessagesApi([
      { type: 'message', blocks: [{ type: 'text', text: 'First answer.' }] },
      { type: 'message', blocks: [{ type: 'text', text: 'Second answer.' }] },
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_plan',
            name: 'write_file',
            input: { path: '.skate/plan.md', content: plan },
          },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Planned.' }] },
      { type: 'message', blocks: [{ type: 'text', text: 'Carrying it out.' }] },
    ]);
    await using editor = startAcpEditor([], agentEnv(api.url));
    await editor.run(async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] });
      const prompt = async (text: string): Promise<string> =>
        (await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] }))
          .stopReason;
      expect(await prompt('First question.')).toBe('end_turn');
      // Planning without writing a plan, then back: the conversation from before goes on, and the user is told.
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'plan' });
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'execute' });
      expect(editor.updates.at(-3)?.update).toEqual({
        sessionUpdate: 'current_mode_update',
        currentModeId: 'execute',
      });
      expect(JSON.stringify(editor.updates.at(-1)?.update)).toContain('No plan was written');
      expect(await prompt('Second question.')).toBe('end_turn');
      expect(JSON.stringify(api.requests[1]?.body?.messages)).toContain('First question.');
      // Planning with a plan, then back: a fresh agent whose system prompt carries the plan.
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'plan' });
      expect(await prompt('Plan the rename.')).toBe('end_turn');
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'execute' });
      expect(await prompt('Go.')).toBe('end_turn');
    });
    expect(api.requests).toHaveLength(5);
    const executing = api.requests[4]?.body;
    expect(JSON.stringify(executing?.system)).toContain('Rename the module.');
    expect(JSON.stringify(executing?.messages)).not.toContain('First question.');
    expect(JSON.stringify(api.requests[2]?.body?.system)).toContain('Planning mode');
  });

  it('session/load replays an earlier session and continues its conversation', async () => {
    await using ws = await hostDir('acp-load-');
    await using api = await fakeMessagesApi([
      { type: 'message', blocks: [{ type: 'text', text: 'Noted: 42.' }] },
      { type: 'message', blocks: [{ type: 'text', text: 'It was 42.' }] },
    ]);
    let sessionId = '';
    {
      await using first = startAcpEditor([], agentEnv(api.url));
      await first.run(async (ctx) => {
        ({ sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] }));
        await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'Remember 42.' }],
        });
      });
    }
    await using second = startAcpEditor([], agentEnv(api.url));
    const stopReason = await second.run(async (ctx) => {
      await ctx.request(methods.agent.session.load, { sessionId, cwd: ws.path, mcpServers: [] });
      // The replay came before load answered.
      expect(text(second.updates, 'user_message_chunk')).toBe('Remember 42.');
      expect(text(second.updates, 'agent_message_chunk')).toBe('Noted: 42.');
      return (
        await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'What was the number?' }],
        })
      ).stopReason;
    });
    expect(stopReason, second.stderr()).toBe('end_turn');
    expect(second.updates.every((n) => n.sessionId === sessionId)).toBe(true);
    const resumed = JSON.stringify(api.requests[1]?.body?.messages);
    expect(resumed).toContain('Remember 42.');
    expect(resumed).toContain('Noted: 42.');
  });
});
