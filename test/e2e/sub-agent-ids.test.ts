import { methods, type SessionNotification } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import type { SessionInfo, StreamMessage } from '../../shared/serve-api.js';
import { startAcpEditor } from '../support/acp-editor.js';
import { cliWorld, textReply, toolCall } from '../support/cli-world.js';
import { type FakeMessagesApi, type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { sseMessages, startSkateServe } from '../support/skate-serve.js';

/**
 * Sub-agent ids are the session's (`spawn_agent` is rebuilt for every run): a second prompt's
 * child is `agent-2`, not `agent-1` again, and a resumed session continues after the highest id
 * its log holds. Each frontend shows them as they are: stream-json's agent paths, ACP's tool
 * call titles and ids, serve's events.
 */
const KEY = 'sk-ant-test-sub-agent-ids';
const JSON_BODY = { 'content-type': 'application/json' };

/** The main agent's turn that starts a child with `marker` in its task, then its answer; the child lists and completes. */
function spawnOnce(api: FakeMessagesApi, marker: string): FakeReply[] {
  api.enqueueFor(
    marker,
    toolCall('c1', 'list_dir', { path: '.' }),
    toolCall('c2', 'complete_task', { status: 'completed', summary: `${marker} done` }),
  );
  // The same call id every time, as a scripted model may well repeat: the ids must differ by agent.
  return [toolCall('s1', 'spawn_agent', { task: `${marker}: look around` }), textReply(`${marker} reported`)];
}

/** The top-level sub-agent ids in a stream-json run's events, in order of first appearance. */
function agentIds(stdout: string): string[] {
  const ids = new Set<string>();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as { agent?: unknown };
    if (Array.isArray(event.agent) && typeof event.agent[0] === 'string') ids.add(event.agent[0]);
  }
  return [...ids];
}

describe('sub-agent ids are unique in a session', () => {
  it('skate -p then --resume: agent-1, then agent-2; the log links each child under its id', async () => {
    await using world = await cliWorld({ key: KEY, prefix: 'ids-cli-' });
    const { api, ws } = world;
    api.enqueue(...spawnOnce(api, 'FIRST-CHILD'));
    const args = ['--workspace', ws, '--output-format', 'stream-json', '--verbose'];
    const first = await world.skate(['-p', 'delegate', ...args]);
    expect(first.code, first.stderr).toBe(0);
    expect(agentIds(first.stdout)).toEqual(['agent-1']);
    const sessionId = (JSON.parse(first.stdout.trim().split('\n').at(-1) as string) as { sessionId: string })
      .sessionId;

    api.enqueue(...spawnOnce(api, 'SECOND-CHILD'));
    const second = await world.skate(['-p', 'again', '--resume', sessionId, ...args]);
    expect(second.code, second.stderr).toBe(0);
    expect(agentIds(second.stdout)).toEqual(['agent-2']);
    // The model read each child's id in its result: agent-1's never came back as another child's.
    const results = JSON.stringify(api.requests.map((request) => request.body?.messages));
    expect(results).toMatch(/\\"agent_id\\": \\"agent-2\\"/);

    const shown = await world.skate(['sessions', 'show', sessionId, '--workspace', ws, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const links = (
      JSON.parse(shown.stdout) as { events: { payload: { type: string; agentId?: string } }[] }
    ).events
      .map((event) => event.payload)
      .filter((payload) => payload.type === 'subagent_link');
    expect(links.map((link) => link.agentId)).toEqual(['agent-1', 'agent-2']);
  });

  it('ACP: two prompts show agent-1 and agent-2; an editor that loads the session goes on with agent-3', async () => {
    await using ws = await hostDir('ids-acp-');
    await using api = await fakeMessagesApi([]);
    const env = { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: api.url };
    api.enqueue(...spawnOnce(api, 'ACP-ONE'), ...spawnOnce(api, 'ACP-TWO'));
    let sessionId = '';
    /** The sub-agents' tool calls an editor was shown: title prefix and id. */
    const childCalls = (updates: readonly SessionNotification[]): { title: string; id: string }[] =>
      updates.flatMap(({ update }) =>
        update.sessionUpdate === 'tool_call' && /^(agent|bg)-\d+: /.test(update.title)
          ? [{ title: update.title.split(':')[0] as string, id: update.toolCallId }]
          : [],
      );
    let seen: { title: string; id: string }[] = [];
    {
      // The first editor closes (its agent with it) before another loads the session.
      await using first = startAcpEditor([], env);
      await first.run(async (ctx) => {
        ({ sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] }));
        for (const prompt of ['delegate', 'again'])
          await ctx.request(methods.agent.session.prompt, {
            sessionId,
            prompt: [{ type: 'text', text: prompt }],
          });
      });
      seen = childCalls(first.updates);
      expect(
        seen.map((c) => c.title),
        first.stderr(),
      ).toEqual(['agent-1', 'agent-1', 'agent-2', 'agent-2']);
      // Tool call ids carry the agent path: the same scripted call id in two children is two calls.
      expect(new Set(seen.map((c) => c.id)).size).toBe(4);
    }

    api.enqueue(...spawnOnce(api, 'ACP-THREE'));
    await using second = startAcpEditor([], env);
    await second.run(async (ctx) => {
      await ctx.request(methods.agent.session.load, { sessionId, cwd: ws.path, mcpServers: [] });
      await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'third' }],
      });
    });
    const after = childCalls(second.updates).filter((c) => !seen.some((s) => s.id === c.id));
    expect(
      after.map((c) => c.title),
      second.stderr(),
    ).toEqual(['agent-3', 'agent-3']);
  });

  it('serve: a session’s second prompt streams its child as agent-2', async () => {
    await using ws = await hostDir('ids-serve-');
    await using api = await fakeMessagesApi([]);
    api.enqueue(...spawnOnce(api, 'SERVE-ONE'), ...spawnOnce(api, 'SERVE-TWO'));
    await using server = await startSkateServe(['--workspace', ws.path, '--approval', 'auto'], {
      ...process.env,
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: api.url,
    });
    const created = await server.request('/v1/sessions', { method: 'POST', headers: JSON_BODY, body: '{}' });
    expect(created.status, server.stderr()).toBe(201);
    const session = (await created.json()) as SessionInfo;
    const ids: string[][] = [];
    for (const prompt of ['delegate', 'again']) {
      const response = await server.request(`/v1/sessions/${session.id}/prompt`, {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify({ text: prompt }),
      });
      expect(response.status, server.stderr()).toBe(200);
      const seen = new Set<string>();
      for await (const { data } of sseMessages(response)) {
        const agent = (data as StreamMessage & { agent?: string[] }).agent;
        if (agent?.[0]) seen.add(agent[0]);
        if (data.type === 'result') break;
      }
      ids.push([...seen]);
    }
    expect(ids, server.stderr()).toEqual([['agent-1'], ['agent-2']]);
  });
});
