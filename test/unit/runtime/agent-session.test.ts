import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCollectingEmitter } from '../../../harness/emitters/collecting-emitter.js';
import { createAgentSession } from '../../../harness/runtime/agent-session.js';
import type { AgentSettings } from '../../../harness/runtime/agent-settings.js';
import { sessionFile } from '../../../harness/session/session-paths.js';
import { loadSession } from '../../../harness/session/session-reader.js';
import type { EngineEvent } from '../../../shared/engine-events.js';
import { RuntimeCommand } from '../../../shared/runtime-command.js';
import { hostDir } from '../../support/host-dir.js';
import { testPolicy } from '../../support/policies.js';
import { commandLine, processDescendants } from '../../support/process-descendants.js';
import { eventually, isAlive } from '../../support/processes.js';
import { createScriptedProvider, type ScriptedTurn } from '../../support/scripted-provider.js';

function settings(workspace: string, turns: ScriptedTurn[], extra: Partial<AgentSettings> = {}) {
  const provider = createScriptedProvider(turns);
  const events = createCollectingEmitter();
  const base: AgentSettings = {
    workspace,
    executor: { kind: 'local', policy: testPolicy(workspace), sandbox: 'required' },
    model: { provider, name: 'scripted-model', maxTokens: 1024 },
    approval: 'auto',
    maxTurns: 10,
    session: { kind: 'new' },
    answerer: 'rules',
    events,
    ...extra,
  };
  return { provider, events, settings: base };
}

const text = (words: string): ScriptedTurn => ({ steps: [{ type: 'text', text: words }] });
const shell = (id: string, command: string): ScriptedTurn => ({
  steps: [{ type: 'tool_call', id, name: 'shell', input: { command } }],
});

function resultOf(events: readonly EngineEvent[], id: string) {
  const found = events.find(
    (event): event is Extract<EngineEvent, { type: 'tool_call_result' }> =>
      event.type === 'tool_call_result' && event.id === id,
  );
  if (!found) throw new Error(`no result for ${id}`);
  return found;
}

describe('AgentSession (real executors)', () => {
  it('keeps the conversation across prompts, in one session log', async () => {
    await using ws = await hostDir('runtime-prompts-');
    const { provider, settings: s } = settings(ws.path, [text('first answer'), text('second answer')]);
    const agent = await createAgentSession(s);
    try {
      expect((await agent.prompt('one')).finalMessage).toBe('first answer');
      const second = await agent.prompt('two');
      expect(second.status).toBe('complete');
      expect(second.sessionId).toBe(agent.sessionId);
      // The second request carries the first exchange.
      expect(provider.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    } finally {
      await agent.close();
    }
    const log = await loadSession(sessionFile(ws.path, agent.sessionId!));
    expect(log.conversationAt().length).toBe(4);
  });

  it('makes a provider given as a function once its executor process runs, and warms it before the first request', async () => {
    await using ws = await hostDir('runtime-late-provider-');
    const { provider: scripted, settings: s } = settings(ws.path, [text('made late')]);
    let executorsWhenMade: string[] = [];
    const order: string[] = [];
    const agent = await createAgentSession({
      ...s,
      model: {
        ...s.model,
        provider: async () => {
          const lines = await Promise.all((await processDescendants(process.pid)).map(commandLine));
          executorsWhenMade = lines.filter((line) => line.includes('executor.js'));
          order.push('made');
          return Object.assign(scripted, {
            warm: async () => {
              order.push('warmed');
            },
          });
        },
      },
    });
    try {
      // The SDK a real provider loads would otherwise compete with the sandbox setup for this thread.
      expect(executorsWhenMade.length).toBeGreaterThan(0);
      expect(order).toEqual(['made', 'warmed']);
      expect((await agent.prompt('go')).finalMessage).toBe('made late');
    } finally {
      await agent.close();
    }
  });

  it("executorSummary says what a local executor's health reports: its policy, sandbox and workspace", async () => {
    await using ws = await hostDir('runtime-summary-');
    const { settings: s } = settings(ws.path, []);
    const agent = await createAgentSession(s);
    try {
      const { policy, enforcement, workspace } = await agent.health();
      expect(await agent.executorSummary()).toEqual({ policy, enforcement, workspace });
      expect(enforcement).toBe('kernel');
    } finally {
      await agent.close();
    }
  });

  it('setNetwork replaces the executor with one that reports the flipped network, and tells the model', async () => {
    await using ws = await hostDir('runtime-net-');
    const { provider, settings: s } = settings(ws.path, [text('before'), text('after')]);
    const agent = await createAgentSession(s);
    try {
      await agent.prompt('hello');
      const oldPid = agent.executorPid!;
      expect(await agent.network()).toEqual({ mode: 'off' });

      expect(await agent.setNetwork('on')).toEqual({ mode: 'on' });
      expect(agent.executorPid).not.toBe(oldPid);
      expect(await eventually(async () => !(await isAlive(oldPid)))).toBe(true);
      expect((await agent.health()).network.mode).toBe('on');
      expect(agent.policy?.network.mode).toBe('on');

      await agent.prompt('go on');
      const request = provider.requests[1]!;
      // Same conversation, and the new prompt says the network changed.
      expect(request.messages).toHaveLength(3);
      const last = JSON.stringify(request.messages[2]);
      expect(last).toMatch(/network is now on/);
      expect(last).toMatch(/go on/);

      const back = await agent.apply(RuntimeCommand.parse({ type: 'set_network', network: 'off' }));
      expect(back).toBe(agent);
      expect(await agent.network()).toEqual({ mode: 'off' });

      // Into an allowlist: a new executor; from one allowlist to another: the same one, a new list.
      await agent.setNetwork({ allow: ['a.example.com'], deny: [] });
      const listed = agent.executorPid;
      expect(await agent.network()).toEqual({ mode: 'allowlist', allow: ['a.example.com'], deny: [] });
      expect(await agent.setNetwork({ allow: ['b.example.com', '*.c.example.com'], deny: [] })).toEqual({
        mode: 'allowlist',
        allow: ['*.c.example.com', 'b.example.com'],
        deny: [],
      });
      expect(agent.executorPid).toBe(listed);
      expect((await agent.network()).mode === 'allowlist' && (await agent.network())).toMatchObject({
        allow: ['*.c.example.com', 'b.example.com'],
      });
    } finally {
      await agent.close();
    }
  });

  it('close shuts the executor down and leaves no process behind', async () => {
    await using ws = await hostDir('runtime-close-');
    const { settings: s } = settings(ws.path, [shell('s1', 'sleep 30 & echo started')]);
    const agent = await createAgentSession(s);
    const pid = agent.executorPid!;
    await agent.prompt('start something');
    const below = await processDescendants(pid);
    await agent.close();
    expect(await eventually(async () => !(await isAlive(pid)))).toBe(true);
    for (const child of below) expect(await isAlive(child), `pid ${child}`).toBe(false);
    await expect(agent.prompt('again')).rejects.toMatchObject({ code: 'closed' });
  });

  it('interrupt (the EngineCommand) cancels the run in progress', async () => {
    await using ws = await hostDir('runtime-int-');
    const { events, settings: s } = settings(ws.path, [
      { steps: [{ type: 'text', text: 'thinking…' }, { type: 'pause' }] },
    ]);
    const agent = await createAgentSession(s);
    try {
      const run = agent.prompt('take your time');
      await eventually(() => events.events.some((event) => event.type === 'text_delta'));
      await expect(agent.prompt('meanwhile')).rejects.toMatchObject({ code: 'busy' });
      expect(agent.answer({ type: 'interrupt' })).toBe(true);
      expect((await run).status).toBe('cancelled');
      expect(agent.answer({ type: 'interrupt' })).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it('set_model switches the model of the next turns and logs the change', async () => {
    await using ws = await hostDir('runtime-model-');
    const { provider, settings: s } = settings(ws.path, [text('a'), text('b')]);
    const agent = await createAgentSession(s);
    try {
      await agent.prompt('one');
      await agent.apply({ type: 'set_model', model: 'other-model' });
      const run = await agent.prompt('two');
      expect(run.model).toBe('other-model');
      expect(provider.requests.map((r) => r.model)).toEqual(['scripted-model', 'other-model']);
    } finally {
      await agent.close();
    }
    const log = await loadSession(sessionFile(ws.path, agent.sessionId!));
    expect(log.events.map((event) => event.payload)).toContainEqual({
      type: 'model_change',
      from: 'scripted-model',
      to: 'other-model',
    });
  });

  it('startPlanning runs a new agent under the plan policy: the kernel denies a write, the plan lands', async () => {
    await using ws = await hostDir('runtime-plan-');
    const plan = '# Plan\n1. do it\n';
    const { settings: s } = settings(
      ws.path,
      [
        shell('w', 'echo x > notes.txt'),
        {
          steps: [
            {
              type: 'tool_call',
              id: 'p',
              name: 'write_file',
              input: { path: '.skate/plan.md', content: plan },
            },
          ],
        },
        text('planned'),
      ],
      { executor: { kind: 'local', policy: 'execute', sandbox: 'required' } },
    );
    const agent = await createAgentSession(s);
    try {
      const planner = await agent.startPlanning();
      try {
        expect(planner.policy?.name).toBe('plan');
        expect(planner.activity).toEqual({ kind: 'plan' });
        expect(planner.executorPid).not.toBe(agent.executorPid);
        expect(planner.sessionId).not.toBe(agent.sessionId);
        const events = createCollectingEmitter();
        planner.subscribe((event) => events.emit(event));
        expect((await planner.prompt('plan it')).status).toBe('complete');
        // The shell runs inside the sandbox: the kernel refuses the write, and the host shows it.
        expect(resultOf(events.events, 'w').output).toMatch(/Read-only file system/);
        expect(existsSync(path.join(ws.path, 'notes.txt'))).toBe(false);
        expect(resultOf(events.events, 'p').isError).toBe(false);
        expect(await readFile(path.join(ws.path, '.skate', 'plan.md'), 'utf8')).toBe(plan);
        // The planner's system prompt is the planning one, and it is offered ask_user.
      } finally {
        await planner.close();
      }
      // The sessions are linked: the planner's shows up in this one's log.
      const log = await loadSession(sessionFile(ws.path, agent.sessionId!));
      expect(log.events.map((event) => event.payload)).toContainEqual(
        expect.objectContaining({ type: 'subagent_link', childSessionId: planner.sessionId, callId: 'plan' }),
      );

      const executor = await agent.execute();
      try {
        expect(executor.activity).toMatchObject({ kind: 'execute', plan });
        expect(executor.policy?.name).toBe('execute');
        expect(executor.policy?.write.allow).toContain(ws.path);
      } finally {
        await executor.close();
      }
    } finally {
      await agent.close();
    }
  });

  it('a planning agent offers ask_user and tells its sub-agents they are read-only', async () => {
    await using ws = await hostDir('runtime-plan-tools-');
    const { provider, settings: s } = settings(ws.path, [text('ok')], {
      executor: { kind: 'local', policy: 'execute', sandbox: 'required' },
      activity: { kind: 'plan' },
      subagents: { maxDepth: 2 },
    });
    const agent = await createAgentSession(s);
    try {
      await agent.prompt('plan');
      const request = provider.requests[0]!;
      const names = request.tools.map((tool) => tool.name);
      expect(names).toContain('ask_user');
      expect(names).toContain('spawn_agent');
      expect(request.system).toMatch(/# Planning mode/);
    } finally {
      await agent.close();
    }
  });

  it('fork starts a new agent on the conversation up to an event, leaving the source alone', async () => {
    await using ws = await hostDir('runtime-fork-');
    const { provider, settings: s } = settings(ws.path, [text('one'), text('two'), text('forked')]);
    const agent = await createAgentSession(s);
    let forkId: string | undefined;
    try {
      await agent.prompt('first');
      await agent.prompt('second');
      // The log is written in batches, soon after each event: wait for the first reply to be on disk.
      const file = sessionFile(ws.path, agent.sessionId!);
      const replies = async () =>
        (await loadSession(file)).events.filter((event) => event.payload.type === 'assistant_message');
      expect(await eventually(async () => (await replies()).length === 2)).toBe(true);
      const firstReply = (await replies())[0]!;
      const fork = await agent.fork(firstReply.id);
      try {
        forkId = fork.sessionId;
        expect(fork.conversation).toHaveLength(2);
        await fork.prompt('other way');
        expect(provider.requests[2]!.messages).toHaveLength(3);
      } finally {
        await fork.close();
      }
      expect(agent.conversation).toHaveLength(4);
    } finally {
      await agent.close();
    }
    expect(forkId).toBeDefined();
    expect(forkId).not.toBe(agent.sessionId);
  });

  it('compact summarises the older conversation now; clear starts afresh and resume brings a session back', async () => {
    await using ws = await hostDir('runtime-compact-');
    const { events, settings: s } = settings(ws.path, [
      text('a1'),
      text('a2'),
      text('a3'),
      text('a4'),
      text('the summary'),
      text('after clear'),
    ]);
    const agent = await createAgentSession(s);
    try {
      for (const words of ['q1', 'q2', 'q3', 'q4']) await agent.prompt(words);
      expect(agent.conversation).toHaveLength(8);
      await agent.apply({ type: 'compact' });
      expect(events.ofType('compaction')).toHaveLength(1);
      // One summary message, then the three exchanges kept.
      expect(agent.conversation).toHaveLength(6);
      expect(JSON.stringify(agent.conversation[0])).toMatch(/the summary/);

      const first = agent.sessionId!;
      await agent.apply({ type: 'clear' });
      expect(agent.sessionId).not.toBe(first);
      expect(agent.conversation).toHaveLength(0);
      await agent.prompt('fresh');
      expect(agent.conversation).toHaveLength(2);

      await agent.apply({ type: 'resume', sessionId: first });
      expect(agent.sessionId).toBe(first);
      expect(agent.conversation).toHaveLength(6);
    } finally {
      await agent.close();
    }
  });
});
