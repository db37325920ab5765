import { type CreateElicitationRequest, methods } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { asEditor, closeLive, type Run, scriptedAgent, select } from './scripted-acp.js';

afterEach(closeLive);

function shellCall(run: Run, id: string): void {
  run.emit({ type: 'tool_call_start', agent: [], id, name: 'shell', args: { command: 'make' } });
}

async function approval(run: Run, callId: string): Promise<'approve' | 'reject'> {
  const requestId = `req-${callId}`;
  run.emit({
    type: 'approval_request',
    agent: [],
    requestId,
    callId,
    name: 'shell',
    args: {},
    effect: 'execute',
  });
  return (await run.inbox.waitFor('approval_response', requestId, run.signal)).decision;
}

describe('skate acp, the protocol layer', () => {
  it('streams a prompt, asks before a command, and remembers "always allow" for the rest of the session', async () => {
    const decisions: string[] = [];
    const agent = scriptedAgent(async (run) => {
      run.emit({ type: 'text_delta', agent: [], text: `You said: ${run.text}` });
      for (const id of ['c1', 'c2']) {
        shellCall(run, id);
        decisions.push(await approval(run, id));
        run.emit({
          type: 'tool_call_result',
          agent: [],
          id,
          name: 'shell',
          output: 'ok',
          isError: false,
          durationMs: 1,
        });
      }
      return { status: 'complete' };
    });
    await asEditor([agent], select('allow_always'), async (ctx, editor) => {
      const { sessionId, modes } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      expect(sessionId).toBe('session-1');
      expect(modes?.currentModeId).toBe('execute');
      expect(modes?.availableModes.map((mode) => mode.id).sort()).toEqual(['execute', 'plan']);
      const response = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'build it' }],
      });
      expect(response.stopReason).toBe('end_turn');
      expect(decisions).toEqual(['approve', 'approve']);
      // Asked once: the second call was answered from "always allow".
      expect(editor.permissions).toHaveLength(1);
      expect(editor.permissions[0]?.toolCall.toolCallId).toBe('c1');
      const kinds = editor.updates.map((n) => n.update.sessionUpdate);
      expect(kinds[0]).toBe('agent_message_chunk');
      // Every update arrived before the prompt's response, the results included.
      const statuses = editor.updates.flatMap((n) =>
        n.update.sessionUpdate === 'tool_call_update' ? [`${n.update.toolCallId}:${n.update.status}`] : [],
      );
      expect(statuses).toEqual(['c1:in_progress', 'c1:completed', 'c2:in_progress', 'c2:completed']);
    });
  });

  it('sends text that piles up while a write is in flight as one chunk, none of it lost', async () => {
    const pieces = Array.from({ length: 200 }, (_, i) => `piece ${i}; `);
    const agent = scriptedAgent(async (run) => {
      for (const text of pieces) run.emit({ type: 'text_delta', agent: [], text });
      run.emit({ type: 'thinking_delta', agent: [], text: 'then think' });
      return { status: 'complete' };
    });
    await asEditor([agent], select('allow_once'), async (ctx, editor) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'x' }] });
      const chunks = editor.updates.filter((n) => n.update.sessionUpdate === 'agent_message_chunk');
      expect(chunks.map((n) => (n.update as { content: { text: string } }).content.text).join('')).toBe(
        pieces.join(''),
      );
      expect(chunks.length).toBeLessThan(pieces.length / 10);
      expect(editor.updates.at(-1)?.update).toEqual({
        sessionUpdate: 'agent_thought_chunk',
        content: { type: 'text', text: 'then think' },
      });
    });
  });

  it('a rejected permission reaches the engine as a rejection', async () => {
    let decision: string | undefined;
    const agent = scriptedAgent(async (run) => {
      shellCall(run, 'c1');
      decision = await approval(run, 'c1');
      return { status: 'complete' };
    });
    await asEditor([agent], select('reject_once'), async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'x' }] });
      expect(decision).toBe('reject');
    });
  });

  it('session/cancel interrupts the run and the prompt ends cancelled, its open calls failed', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const agent = scriptedAgent(async (run) => {
      run.emit({ type: 'tool_call_start', agent: [], id: 'slow', name: 'read_file', args: { path: 'a' } });
      started();
      await new Promise((resolve) => run.signal.addEventListener('abort', resolve, { once: true }));
      return { status: 'cancelled' };
    });
    await asEditor([agent], select('allow_once'), async (ctx, editor) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      const prompt = ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'x' }],
      });
      await running;
      await ctx.notify(methods.agent.session.cancel, { sessionId });
      expect((await prompt).stopReason).toBe('cancelled');
      expect(editor.updates.at(-1)?.update).toMatchObject({ toolCallId: 'slow', status: 'failed' });
    });
  });

  it('answers the turn limit by ending the turn with max_turn_requests, and refuses a second prompt while one runs', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const agent = scriptedAgent(async (run) => {
      await gate;
      run.emit({ type: 'loop_cap_reached', agent: [], requestId: 'cap', iterations: 5 });
      const decision = await run.inbox.waitFor('loop_decision', 'cap', run.signal);
      return { status: decision.decision === 'stop' ? 'loop_cap' : 'complete' };
    });
    await asEditor([agent], select('allow_once'), async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      const first = ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'x' }],
      });
      await expect(
        ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'y' }] }),
      ).rejects.toThrow(/already running/);
      release();
      expect((await first).stopReason).toBe('max_turn_requests');
    });
  });

  it('asks ask_user questions with options as permission requests, and says free text cannot be answered', async () => {
    let answers: string[] = [];
    const agent = scriptedAgent(async (run) => {
      run.emit({ type: 'tool_call_start', agent: [], id: 'q', name: 'ask_user', args: {} });
      run.emit({
        type: 'ask_user_request',
        agent: [],
        requestId: 'ask',
        questions: [{ question: 'Which database?', options: ['sqlite', 'postgres'] }, { question: 'Why?' }],
      });
      answers = (await run.inbox.waitFor('ask_user_response', 'ask', run.signal)).answers;
      return { status: 'complete' };
    });
    await asEditor([agent], select('option-1'), async (ctx, editor) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'x' }] });
      expect(editor.permissions).toHaveLength(1);
      expect(editor.permissions[0]?.toolCall).toMatchObject({ toolCallId: 'q', title: 'Which database?' });
      expect(answers[0]).toBe('postgres');
      expect(answers[1]).toMatch(/cannot take a free-text answer/);
    });
  });

  it('asks all questions in one form when the client takes elicitations', async () => {
    let answers: string[] = [];
    const agent = scriptedAgent(async (run) => {
      run.emit({ type: 'tool_call_start', agent: [], id: 'q', name: 'ask_user', args: {} });
      run.emit({
        type: 'ask_user_request',
        agent: [],
        requestId: 'ask',
        questions: [{ question: 'Which database?', options: ['sqlite', 'postgres'] }, { question: 'Why?' }],
      });
      answers = (await run.inbox.waitFor('ask_user_response', 'ask', run.signal)).answers;
      return { status: 'complete' };
    });
    const forms: CreateElicitationRequest[] = [];
    await asEditor(
      [agent],
      select('allow_once'),
      async (ctx, editor) => {
        const { sessionId } = await ctx.request(methods.agent.session.new, {
          cwd: process.cwd(),
          mcpServers: [],
        });
        await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'x' }] });
        expect(editor.permissions).toEqual([]);
      },
      {
        form: (request) => {
          forms.push(request);
          return { action: 'accept', content: { q1: 'sqlite', q2: 'it is small' } };
        },
      },
    );
    expect(forms).toHaveLength(1);
    expect(forms[0]).toMatchObject({ mode: 'form', toolCallId: 'q' });
    expect(answers).toEqual(['sqlite', 'it is small']);
  });

  it('switches modes with current_mode_update, and rejects an unknown mode', async () => {
    const agent = scriptedAgent(async () => ({ status: 'complete' }));
    await asEditor([agent], select('allow_once'), async (ctx, editor) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [],
      });
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'plan' });
      expect(agent.modes).toEqual(['plan']);
      expect(editor.updates.at(-2)?.update).toEqual({
        sessionUpdate: 'current_mode_update',
        currentModeId: 'plan',
      });
      // Clients that take config options read the mode there.
      expect(editor.updates.at(-1)?.update).toMatchObject({
        sessionUpdate: 'config_option_update',
        configOptions: [{ id: 'mode', currentValue: 'plan' }, { id: 'model' }, { id: 'network' }],
      });
      await expect(ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'yolo' })).rejects.toThrow(
        /unknown mode yolo/,
      );
    });
  });

  it('session/load replays the stored conversation before it answers', async () => {
    const agent = scriptedAgent(async () => ({ status: 'complete' }), {
      id: 'old-session',
      history: [
        { role: 'user', content: [{ type: 'text', text: 'earlier question' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'earlier answer' }] },
      ],
    });
    await asEditor([agent], select('allow_once'), async (ctx, editor) => {
      const loaded = await ctx.request(methods.agent.session.load, {
        sessionId: 'old-session',
        cwd: process.cwd(),
        mcpServers: [],
      });
      expect(loaded.modes?.currentModeId).toBe('execute');
      expect(editor.updates.map((n) => [n.sessionId, n.update.sessionUpdate])).toEqual([
        ['old-session', 'user_message_chunk'],
        ['old-session', 'agent_message_chunk'],
      ]);
    });
  });

  it('session/resume continues without a replay, and session/close stops the agent', async () => {
    const agent = scriptedAgent(async () => ({ status: 'complete' }), {
      id: 'old-session',
      history: [{ role: 'user', content: [{ type: 'text', text: 'earlier question' }] }],
    });
    await asEditor([agent], select('allow_once'), async (ctx, editor) => {
      const resumed = await ctx.request(methods.agent.session.resume, {
        sessionId: 'old-session',
        cwd: process.cwd(),
      });
      expect(resumed.modes?.currentModeId).toBe('execute');
      expect(editor.updates).toEqual([]);
      await ctx.request(methods.agent.session.close, { sessionId: 'old-session' });
      expect(agent.closed).toBe(true);
      await expect(
        ctx.request(methods.agent.session.prompt, {
          sessionId: 'old-session',
          prompt: [{ type: 'text', text: 'x' }],
        }),
      ).rejects.toThrow();
    });
  });

  it("hands the client's MCP servers (stdio, http, sse) to the session's agent, and says which it cannot use", async () => {
    const agent = scriptedAgent(async () => ({ status: 'complete' }));
    await asEditor([agent], select('allow_once'), async (ctx, editor) => {
      const created = await ctx.request(methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [
          { name: 'git hub', command: 'gh-mcp', args: ['--stdio'], env: [{ name: 'GH_TOKEN', value: 't' }] },
          {
            type: 'http',
            name: 'docs',
            url: 'https://docs.example/mcp',
            headers: [{ name: 'Authorization', value: 'Bearer x' }],
          },
          { type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] },
          { type: 'http', name: 'ftp', url: 'ftp://files.example/mcp', headers: [] },
        ],
      });
      expect(created._meta).toBeUndefined();
      expect(editor.opened[0]?.mcpServers).toEqual([
        {
          name: 'git_hub',
          scope: 'client',
          file: 'the ACP client',
          config: { command: 'gh-mcp', args: ['--stdio'], env: { GH_TOKEN: 't' } },
        },
        {
          name: 'docs',
          scope: 'client',
          file: 'the ACP client',
          config: { type: 'http', url: 'https://docs.example/mcp', headers: { Authorization: 'Bearer x' } },
        },
        {
          name: 'old',
          scope: 'client',
          file: 'the ACP client',
          config: { type: 'sse', url: 'http://127.0.0.1:9/sse', headers: {} },
        },
      ]);
      await ctx.request(methods.agent.session.prompt, {
        sessionId: created.sessionId,
        prompt: [{ type: 'text', text: 'x' }],
      });
      expect(JSON.stringify(editor.updates[0]?.update)).toContain('\\"ftp\\" is not used');
    });
  });

  it("gives the editor Skate's own message when an agent cannot start", async () => {
    const refused = Object.assign(new Error('no policy named wide in ~/.skate/policies or built in'), {
      code: 'policy',
    });
    await asEditor(
      [refused, new Error('the executor exited at start')],
      select('allow_once'),
      async (ctx) => {
        const start = () => ctx.request(methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
        await expect(start()).rejects.toMatchObject({
          code: -32602,
          message: expect.stringMatching(/no policy named wide/),
        });
        await expect(start()).rejects.toMatchObject({
          code: -32603,
          message: expect.stringMatching(/executor exited/),
        });
      },
    );
  });

  it('refuses a cwd that is not an absolute directory, and an unknown session', async () => {
    await asEditor([], select('allow_once'), async (ctx) => {
      await expect(
        ctx.request(methods.agent.session.new, { cwd: 'relative', mcpServers: [] }),
      ).rejects.toThrow(/absolute/);
      await expect(
        ctx.request(methods.agent.session.prompt, {
          sessionId: 'nope',
          prompt: [{ type: 'text', text: 'x' }],
        }),
      ).rejects.toThrow();
    });
  });
});
