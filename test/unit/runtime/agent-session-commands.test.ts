import { describe, expect, it } from 'vitest';
import { createCollectingEmitter } from '../../../harness/emitters/collecting-emitter.js';
import { createAgentSession } from '../../../harness/runtime/agent-session.js';
import type { AgentSettings } from '../../../harness/runtime/agent-settings.js';
import type { LoggedMessage } from '../../../harness/runtime/logged-message.js';
import { sessionFile } from '../../../harness/session/session-paths.js';
import { loadSession } from '../../../harness/session/session-reader.js';
import type { EngineEvent } from '../../../shared/engine-events.js';
import { RuntimeCommand } from '../../../shared/runtime-command.js';
import { hostDir } from '../../support/host-dir.js';
import { testPolicy } from '../../support/policies.js';
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

describe('AgentSession commands for the terminal UI', () => {
  it('set_approval during a run applies from the next tool calls on', async () => {
    await using ws = await hostDir('runtime-approval-');
    const { events, settings: s } = settings(
      ws.path,
      [shell('c1', 'echo one > one.txt'), shell('c2', 'echo two > two.txt'), text('done')],
      { approval: 'deny-writes' },
    );
    const agent = await createAgentSession(s);
    try {
      // The first call is refused under deny-writes; the person switches to auto before the next one.
      agent.subscribe((event) => {
        if (event.type === 'action_blocked' && event.id === 'c1')
          void agent.apply(RuntimeCommand.parse({ type: 'set_approval', approval: 'auto' }));
      });
      expect((await agent.prompt('write two files')).status).toBe('complete');
      expect(agent.approval).toBe('auto');
    } finally {
      await agent.close();
    }
    const results = events.events.filter(
      (event): event is Extract<EngineEvent, { type: 'tool_call_result' }> =>
        event.type === 'tool_call_result',
    );
    expect(results.map((result) => [result.id, result.isError])).toEqual([
      ['c1', true],
      ['c2', false],
    ]);
  });

  it("a run's result means its events are in the log: read right after, the file holds the whole run", async () => {
    await using ws = await hostDir('runtime-flushed-');
    const { settings: s } = settings(ws.path, [shell('c1', 'echo hi'), text('all done')]);
    const agent = await createAgentSession(s);
    try {
      const outcome = await agent.prompt('go');
      // No close, no fork: what a transcript request or another process reads at this moment.
      const log = await loadSession(sessionFile(ws.path, outcome.sessionId!));
      expect(log.events.at(-1)!.id).toBe(agent.lastEventId);
      expect(JSON.stringify(log.events.at(-1))).toContain('all done');
    } finally {
      await agent.close();
    }
  });

  it('tells where each message landed in the log, and a fork at one of them holds the conversation up to it', async () => {
    await using ws = await hostDir('runtime-refs-');
    const { settings: s } = settings(ws.path, [shell('c1', 'echo hi'), text('first done'), text('second')]);
    const agent = await createAgentSession(s);
    const logged: LoggedMessage[] = [];
    agent.onMessageLogged((entry) => logged.push(entry));
    let forkId: string | undefined;
    try {
      await agent.prompt('one');
      await agent.prompt('two');
      expect(logged.map((entry) => entry.kind)).toEqual([
        'prompt',
        'reply',
        'tool_results',
        'reply',
        'prompt',
        'reply',
      ]);
      expect(logged[2]!.callIds).toEqual(['c1']);
      // Each conversation message knows its event, and the refs match what listeners were told.
      const refs = agent.conversation.map((message) => agent.messageRef(message)?.eventId);
      expect(refs).toEqual(logged.map((entry) => entry.eventId));
      // Fork just before the second prompt (its parent): the first exchange only.
      const fork = await agent.apply({ type: 'fork', atEventId: logged[4]!.parentId! });
      try {
        // The fork flushed the source's log: every ref names its event and that event's parent.
        const log = await loadSession(sessionFile(ws.path, agent.sessionId!));
        for (const entry of logged) expect(log.findEvent(entry.eventId).parentId).toBe(entry.parentId);
        forkId = fork.sessionId;
        expect(fork.conversation).toHaveLength(4);
        // A forked agent knows its history's events too (read from its new log).
        const forkLog = await loadSession(sessionFile(ws.path, fork.sessionId!));
        expect(fork.conversation.map((message) => fork.messageRef(message)?.eventId)).toEqual(
          forkLog.events.map((event) => event.id),
        );
      } finally {
        await fork.close();
      }
    } finally {
      await agent.close();
    }
    expect(forkId).not.toBe(agent.sessionId);
  });
});
