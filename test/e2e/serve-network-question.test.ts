import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import type { SessionInfo, StreamMessage } from '../../shared/serve-api.js';
import { cliEnv, toolCall } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { hitTarget } from '../support/network-upstreams.js';
import { type SkateServe, type SseMessage, sseMessages, startSkateServe } from '../support/skate-serve.js';

/**
 * A refused host as a serve client meets it (issue #21): an `ask_user_request` carrying
 * `network` on the prompt's SSE stream, answered through the command endpoint; never past the
 * server's own policy.
 */
const support = await probeSandbox();
const JSON_BODY = { 'content-type': 'application/json' };

async function readUntil(
  stream: AsyncGenerator<SseMessage>,
  type: string,
  into: SseMessage[] = [],
): Promise<SseMessage[]> {
  for (;;) {
    const next = await stream.next();
    if (next.done) throw new Error(`the stream ended before ${type}: ${into.map((m) => m.event).join(' ')}`);
    into.push(next.value);
    if (next.value.event === type) return into;
  }
}

async function session(server: SkateServe, body: object): Promise<SessionInfo> {
  const response = await server.request('/v1/sessions', {
    method: 'POST',
    headers: JSON_BODY,
    body: JSON.stringify(body),
  });
  expect(response.status, server.stderr()).toBe(201);
  return (await response.json()) as SessionInfo;
}

describe.skipIf(!support.available)('a refused host over skate serve (HTTP + SSE)', () => {
  it('asks the client within the server policy, lets the connection through on its answer, and not past the policy', async () => {
    await using home = await hostDir('serve-net-home-');
    await using ws = await hostDir('serve-net-ws-');
    await using target = await hitTarget();
    const { hits, port } = target;
    const shellCall = (name: string) =>
      toolCall(`tu_${name}`, 'shell', { command: target.curlViaProxy(name) });
    await using api = await fakeMessagesApi([
      shellCall('asked'),
      { type: 'message', blocks: [{ type: 'text', text: 'Fetched.' }] },
      shellCall('past-policy'),
      { type: 'message', blocks: [{ type: 'text', text: 'Refused.' }] },
    ]);
    const env = cliEnv({ home: home.path, api: api.url });
    // The server's policy has the network on; the session narrows it to one host.
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--approval', 'auto', '--network', 'on'],
      env,
    );
    const narrow = await session(server, { network: { allow: ['example.com'] } });
    const prompted = await server.request(`/v1/sessions/${narrow.id}/prompt`, {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ text: 'fetch it' }),
    });
    const stream = sseMessages(prompted);
    const seen = await readUntil(stream, 'ask_user_request');
    const question = seen.at(-1)!.data as Extract<StreamMessage, { type: 'ask_user_request' }>;
    expect(question.network).toEqual({ host: '127.0.0.1', port });
    expect(hits).toEqual([]);
    const answered = await server.request(`/v1/sessions/${narrow.id}/commands`, {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({
        type: 'ask_user_response',
        requestId: question.requestId,
        answers: ['Allow once'],
      }),
    });
    expect(answered.status).toBe(202);
    await readUntil(stream, 'result', seen);
    expect(hits).toEqual(['/asked']);

    // A server whose own policy is that one host: nothing past it is asked, the proxy refuses.
    await using tight = await startSkateServe(
      ['--workspace', ws.path, '--approval', 'auto', '--network', 'example.com'],
      env,
    );
    const bound = await session(tight, {});
    const refused = await tight.request(`/v1/sessions/${bound.id}/prompt`, {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ text: 'fetch it' }),
    });
    const events: SseMessage[] = [];
    for await (const message of sseMessages(refused)) events.push(message);
    expect(events.some((m) => m.event === 'ask_user_request')).toBe(false);
    expect(events.some((m) => m.event === 'network_denied')).toBe(true);
    expect(hits).toEqual(['/asked']);
  }, 120_000);
  it("shows a host allowed for the session in the session's network at once, and keeps it for the next prompt", async () => {
    await using home = await hostDir('serve-net-home-');
    await using ws = await hostDir('serve-net-ws-');
    await using target = await hitTarget();
    const { hits, port } = target;
    const shellCall = (name: string) =>
      toolCall(`tu_${name}`, 'shell', { command: target.curlViaProxy(name) });
    await using api = await fakeMessagesApi([
      shellCall('first'),
      { type: 'message', blocks: [{ type: 'text', text: 'Fetched.' }] },
      shellCall('again'),
      { type: 'message', blocks: [{ type: 'text', text: 'Fetched again.' }] },
    ]);
    const env = cliEnv({ home: home.path, api: api.url });
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--approval', 'auto', '--network', 'on'],
      env,
    );
    const created = await session(server, { network: { allow: ['example.com'] } });
    const prompt = (text: string) =>
      server.request(`/v1/sessions/${created.id}/prompt`, {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify({ text }),
      });
    const stream = sseMessages(await prompt('fetch it'));
    const seen = await readUntil(stream, 'ask_user_request');
    const question = seen.at(-1)!.data as Extract<StreamMessage, { type: 'ask_user_request' }>;
    const answered = await server.request(`/v1/sessions/${created.id}/commands`, {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({
        type: 'ask_user_response',
        requestId: question.requestId,
        answers: ['Allow for this session'],
      }),
    });
    expect(answered.status).toBe(202);
    await readUntil(stream, 'result', seen);
    expect(hits).toEqual(['/first']);
    // The session's own record, over HTTP, names the host the answer added.
    const info = (await (await server.request(`/v1/sessions/${created.id}`)).json()) as SessionInfo;
    expect(info.network).toEqual({
      allow: expect.arrayContaining(['example.com', `127.0.0.1:${port}`]),
      deny: [],
    });
    expect((info.network as { allow: string[] }).allow).toHaveLength(2);
    const listed = (await (await server.request('/v1/sessions')).json()) as { sessions: SessionInfo[] };
    expect(listed.sessions.find((each) => each.id === created.id)?.network).toEqual(info.network);
    // The next prompt reaches it without a question.
    const events: SseMessage[] = [];
    for await (const message of sseMessages(await prompt('again'))) events.push(message);
    expect(events.some((m) => m.event === 'ask_user_request')).toBe(false);
    expect(hits).toEqual(['/first', '/again']);
  }, 120_000);
});
