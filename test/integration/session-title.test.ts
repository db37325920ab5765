import { describe, expect, it } from 'vitest';
import { createCollectingEmitter } from '../../harness/emitters/collecting-emitter.js';
import { createAnthropicProvider } from '../../harness/provider/anthropic-provider.js';
import { createAgentSession } from '../../harness/runtime/agent-session.js';
import type { AgentSettings } from '../../harness/runtime/agent-settings.js';
import { titleModel } from '../../harness/runtime/session-title.js';
import { sessionFile } from '../../harness/session/session-paths.js';
import { loadSession } from '../../harness/session/session-reader.js';
import { listSessions } from '../../harness/session/session-store.js';
import {
  apiErrorReply,
  type FakeMessagesApi,
  type FakeReply,
  fakeMessagesApi,
} from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { testPolicy } from '../support/policies.js';

const MODEL = 'claude-sonnet-4-6';

function settings(workspace: string, api: FakeMessagesApi, titleSessions: boolean): AgentSettings {
  return {
    workspace,
    executor: { kind: 'local', policy: testPolicy(workspace), sandbox: 'required' },
    model: {
      provider: createAnthropicProvider({
        apiKey: 'sk-ant-test-key',
        baseURL: api.url,
        backoff: { baseMs: 5, capMs: 20 },
      }),
      name: MODEL,
      maxTokens: 1024,
    },
    approval: 'auto',
    maxTurns: 5,
    session: { kind: 'new' },
    answerer: 'user',
    titleSessions,
    events: createCollectingEmitter(),
  };
}

const reply = (text: string, output = 10): Extract<FakeReply, { type: 'message' }> => ({
  type: 'message',
  blocks: [{ type: 'text', text }],
  usage: { input_tokens: 100, output_tokens: output },
});

describe('session titles (the real SDK against the local Messages API)', () => {
  it('after the first run a cheap model titles the session: one request, recorded in the log, listed', async () => {
    await using ws = await hostDir('title-ok-');
    await using api = await fakeMessagesApi([
      reply('The test was flaky because of a timer; fixed.'),
      reply('"Fix the flaky timer test."', 6),
      reply('Second answer.'),
    ]);
    const agent = await createAgentSession(settings(ws.path, api, true));
    try {
      await agent.prompt('Please fix the flaky test in src/timer.test.ts\nIt fails one run in ten.');
      await agent.whenTitled();
      // The title request: the cheap model, no tools, the first prompt and reply in it.
      const titleRequest = api.requests[1]!.body!;
      expect(titleRequest.model).toBe(titleModel(MODEL));
      expect(titleRequest.model).toMatch(/haiku/);
      expect(titleRequest.tools ?? []).toEqual([]);
      expect(titleRequest.max_tokens).toBeLessThanOrEqual(64);
      expect(JSON.stringify(titleRequest.messages)).toContain('flaky test in src/timer.test.ts');
      // Same key handling as the agent's own requests.
      const key = (request: number) =>
        api.requests[request]!.headers.authorization ?? api.requests[request]!.headers['x-api-key'];
      expect(key(1)).toContain('sk-ant-test-key');
      expect(key(1)).toBe(key(0));

      // Only once: the second run asks nothing more, and carries no trace of the title exchange.
      await agent.prompt('thanks');
      await agent.whenTitled();
      expect(api.requests).toHaveLength(3);
      expect(JSON.stringify(api.requests[2]!.body!.messages)).not.toContain('flaky timer test');
    } finally {
      await agent.close();
    }
    const log = await loadSession(sessionFile(ws.path, agent.sessionId!));
    const titles = log.events.filter((event) => event.payload.type === 'title');
    expect(titles.map((event) => event.payload)).toEqual([
      {
        type: 'title',
        title: 'Fix the flaky timer test',
        model: titleModel(MODEL),
        usage: { inputTokens: 100, outputTokens: 6, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ]);
    expect(log.conversationAt()).toHaveLength(4);
    const [listed] = (await listSessions(ws.path)).sessions;
    expect(listed).toMatchObject({ title: 'Fix the flaky timer test', titled: true });
    // The title request's tokens count in the session's totals.
    expect(listed!.total.usage.outputTokens).toBe(10 + 6 + 10);
  });

  it('a failing title request changes nothing else: same log but the title, the list falls back to the prompt', async () => {
    await using ws = await hostDir('title-fail-');
    const runs = async (titleSessions: boolean, failure: boolean) => {
      await using api = await fakeMessagesApi([
        reply('First answer.'),
        ...(titleSessions && failure ? [apiErrorReply(400, 'invalid_request_error', 'no such model')] : []),
        reply('Second answer.'),
      ]);
      const agent = await createAgentSession(settings(ws.path, api, titleSessions));
      try {
        await agent.prompt('Rename the helper\nand update its callers');
        await agent.whenTitled();
        await agent.prompt('go on');
      } finally {
        await agent.close();
      }
      const log = await loadSession(sessionFile(ws.path, agent.sessionId!));
      return {
        requests: api.requests.length,
        payloads: log.events.map((event) => event.payload),
        id: agent.sessionId!,
      };
    };
    const failed = await runs(true, true);
    const untitled = await runs(false, false);
    expect(failed.requests).toBe(3);
    expect(untitled.requests).toBe(2);
    // Event for event the same as a session that never asked for a title.
    expect(failed.payloads).toEqual(untitled.payloads);
    expect(failed.payloads.some((payload) => payload.type === 'title')).toBe(false);
    const listed = (await listSessions(ws.path)).sessions.find((session) => session.id === failed.id);
    expect(listed).toMatchObject({ title: 'Rename the helper', titled: false });
  });

  it('closing the agent waits a short grace for a title still out, then abandons it: nothing recorded', async () => {
    await using ws = await hostDir('title-close-');
    await using api = await fakeMessagesApi([
      reply('Done.'),
      { ...reply('A slow title'), chunkDelayMs: 10_000 },
    ]);
    const agent = await createAgentSession(settings(ws.path, api, true));
    await agent.prompt('do the thing');
    // The title request is out (its reply trickles in slowly) when the agent closes.
    for (let i = 0; i < 100 && api.requests.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(api.requests).toHaveLength(2);
    const started = Date.now();
    await agent.close();
    // The grace is 2 s; the title would have taken far longer.
    expect(Date.now() - started).toBeLessThan(6_000);
    const log = await loadSession(sessionFile(ws.path, agent.sessionId!));
    expect(log.events.some((event) => event.payload.type === 'title')).toBe(false);
  });
});
