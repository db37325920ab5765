import { describe, expect, it } from 'vitest';
import type { ServeErrorBody, SessionInfo, StreamMessage } from '../../shared/serve-api.js';
import { toolCall as call, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { sseMessages, startSkateServe } from '../support/skate-serve.js';

/**
 * Background sub-agents over `skate serve` (issue #25), real HTTP: each child's events are in the
 * run's stream, tagged with its agent path, and `cancel_agent` cancels one while the parent goes on.
 */
const JSON_BODY = { 'content-type': 'application/json' };

describe('serve: background sub-agents', () => {
  it('streams each child’s events and cancels one with cancel_agent; the run’s result counts both', async () => {
    await using ws = await hostDir('serve-bg-');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 's1',
            name: 'spawn_agent',
            input: { task: 'BG-K: long', background: true },
          },
          {
            type: 'tool_use',
            id: 's2',
            name: 'spawn_agent',
            input: { task: 'BG-L: short', background: true },
          },
        ],
        stopReason: 'tool_use',
      },
      text('waiting'),
      text('next'),
      text('last'),
    ]);
    api.enqueueFor('BG-K', call('k1', 'shell', { command: 'sleep 60' }));
    api.enqueueFor(
      'BG-L',
      call('l1', 'shell', { command: 'sleep 2' }),
      call('l2', 'complete_task', { status: 'completed', summary: 'L done' }),
    );
    await using server = await startSkateServe(['--workspace', ws.path, '--approval', 'auto'], {
      ...process.env,
      ANTHROPIC_API_KEY: 'sk-ant-test-serve-bg',
      ANTHROPIC_BASE_URL: api.url,
    });
    const created = await server.request('/v1/sessions', { method: 'POST', headers: JSON_BODY, body: '{}' });
    expect(created.status, server.stderr()).toBe(201);
    const session = (await created.json()) as SessionInfo;
    const command = (body: Record<string, unknown>): Promise<Response> =>
      server.request(`/v1/sessions/${session.id}/commands`, {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify(body),
      });

    const response = await server.request(`/v1/sessions/${session.id}/prompt`, {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ text: 'start two' }),
    });
    expect(response.status).toBe(200);
    const messages: StreamMessage[] = [];
    let cancelled: Response | undefined;
    for await (const { data } of sseMessages(response)) {
      messages.push(data);
      // bg-1 is inside its long command: cancel it, and only it.
      if (
        !cancelled &&
        data.type === 'tool_call_start' &&
        data.name === 'shell' &&
        data.agent.join('/') === 'bg-1'
      ) {
        cancelled = await command({ type: 'cancel_agent', agentId: 'bg-1' });
      }
    }
    expect(cancelled?.status).toBe(202);
    // Each child's events are in the stream under its own path.
    const paths = new Set(
      messages.flatMap((m) => ('agent' in m && Array.isArray(m.agent) ? [m.agent.join('/')] : [])),
    );
    expect(paths).toContain('bg-1');
    expect(paths).toContain('bg-2');
    const ends = messages.flatMap((m) => (m.type === 'dispatch_end' ? [m.record] : []));
    expect(ends.map((r) => [r.agent_id, r.status, r.failure ?? null]).sort()).toEqual([
      ['bg-1', 'failed', 'cancelled'],
      ['bg-2', 'completed', null],
    ]);
    const result = messages.at(-1);
    expect(result?.type).toBe('result');
    if (result?.type !== 'result') return;
    expect(result.status).toBe('complete');
    expect(result.dispatch).toMatchObject({ dispatches: 2, failures: { cancelled: 1 } });

    // A child that is not running cannot be cancelled: a clear refusal, not a silent 202.
    const again = await command({ type: 'cancel_agent', agentId: 'bg-1' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as ServeErrorBody).error.message).toContain(
      'no background sub-agent bg-1 running',
    );
  }, 90_000);
});
