import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import type {
  PromptJsonResponse,
  ServeErrorBody,
  SessionInfo,
  StreamMessage,
} from '../../shared/serve-api.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { processDescendants } from '../support/process-descendants.js';
import { eventually, isAlive } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import {
  allSseMessages,
  SERVE_TOKEN,
  type SkateServe,
  type SseMessage,
  sseMessages,
  startSkateServe,
} from '../support/skate-serve.js';

const KEY = 'sk-ant-test-key-for-serve';

function serveEnv(baseUrl: string): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: baseUrl };
}

const JSON_BODY = { 'content-type': 'application/json' };

async function createSession(server: SkateServe, body: Record<string, unknown> = {}): Promise<SessionInfo> {
  const response = await server.request('/v1/sessions', {
    method: 'POST',
    headers: JSON_BODY,
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as SessionInfo & ServeErrorBody;
  if (response.status !== 201)
    throw new Error(`${response.status} ${JSON.stringify(json)}\n${server.stderr()}`);
  return json;
}

function prompt(server: SkateServe, id: string, text: string, init: RequestInit = {}): Promise<Response> {
  return server.request(`/v1/sessions/${id}/prompt`, {
    method: 'POST',
    ...init,
    headers: { ...JSON_BODY, ...(init.headers as Record<string, string>) },
    body: JSON.stringify({ text }),
  });
}

function command(server: SkateServe, id: string, body: Record<string, unknown>): Promise<Response> {
  return server.request(`/v1/sessions/${id}/commands`, {
    method: 'POST',
    headers: JSON_BODY,
    body: JSON.stringify(body),
  });
}

/** Reads a stream until a message of `type`, returning everything read so far (the stream stays open). */
async function readUntil(
  stream: AsyncGenerator<SseMessage>,
  type: StreamMessage['type'],
  into: SseMessage[] = [],
): Promise<SseMessage[]> {
  for (;;) {
    const next = await stream.next();
    if (next.done) throw new Error(`the stream ended before ${type}: ${into.map((m) => m.event).join(' ')}`);
    into.push(next.value);
    if (next.value.event === type) return into;
  }
}

async function errorOf(response: Response): Promise<ServeErrorBody['error']> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return ((await response.json()) as ServeErrorBody).error;
}

/** A slow text reply: one event every `delayMs`, so a test can act while it streams. */
function slowText(text: string, delayMs = 40): FakeReply {
  return { type: 'message', blocks: [{ type: 'text', text }], chunkDelayMs: delayMs };
}

// Workspaces outside /tmp: sandboxes get a private /tmp, so the host could not see writes there.
describe('skate serve over real HTTP', () => {
  it('streams a run as SSE, one engine event per message, ids increasing by one', async () => {
    await using ws = await hostDir('serve-stream-');
    await writeFile(path.join(ws.path, 'notes.txt'), 'the answer is 42\n');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'text', text: 'Reading the notes.' },
          { type: 'tool_use', id: 'tu_read', name: 'read_file', input: { path: 'notes.txt' } },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'It says 42.' }] },
    ]);
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--approval', 'auto'],
      serveEnv(api.url),
    );
    const created = await server.request('/v1/sessions', { method: 'POST', headers: JSON_BODY, body: '{}' });
    expect(created.status, server.stderr()).toBe(201);
    const session = (await created.json()) as SessionInfo;
    expect(session).toMatchObject({ workspace: ws.path, policy: 'execute', status: 'idle', lastEventId: 0 });

    const response = await server.request(`/v1/sessions/${session.id}/prompt`, {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ text: 'What do the notes say?' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages = await allSseMessages(response);
    expect(messages.map((m) => m.id)).toEqual(messages.map((_m, index) => index + 1));
    for (const message of messages) expect(message.event).toBe(message.data.type);
    const types = messages
      .map((m) => m.event)
      .filter((type) => type !== 'text_delta' && type !== 'usage' && type !== 'context_usage');
    expect(types).toEqual([
      'run_start',
      'turn_start',
      'text_done',
      'tool_call_start',
      'tool_call_result',
      'turn_end',
      'turn_start',
      'text_done',
      'turn_end',
      'result',
    ]);
    const runStart = messages[0]!.data;
    expect(runStart).toMatchObject({ type: 'run_start', sessionId: session.id });
    expect(response.headers.get('x-skate-run-id')).toBe((runStart as { runId: string }).runId);
    const result = messages.find((m) => m.data.type === 'tool_call_result')!.data;
    expect(result).toMatchObject({ name: 'read_file', isError: false });
    expect((result as { output: string }).output).toContain('the answer is 42');
    const text = messages.flatMap((m) => (m.data.type === 'text_delta' ? [m.data.text] : [])).join('');
    expect(text).toBe('Reading the notes.It says 42.');
    expect(messages.at(-1)!.data).toMatchObject({
      type: 'result',
      status: 'complete',
      finalMessage: 'It says 42.',
      turns: 2,
      toolCalls: 1,
      sessionId: session.id,
    });
    // The session's log is the usual one: its transcript holds the conversation.
    const transcript = await server.request(`/v1/sessions/${session.id}/transcript`);
    expect(transcript.status).toBe(200);
    const { header, events } = (await transcript.json()) as { header: { id: string }; events: unknown[] };
    expect(header.id).toBe(session.id);
    expect(events.length).toBeGreaterThanOrEqual(4);
    expect(await server.stop()).toBe(0);
  });

  it('a client that loses the stream comes back with Last-Event-ID and misses nothing', async () => {
    await using ws = await hostDir('serve-reconnect-');
    await using api = await fakeMessagesApi([
      slowText('one two three four five six seven eight nine ten', 30),
    ]);
    await using server = await startSkateServe(['--workspace', ws.path], serveEnv(api.url));
    const session = await createSession(server);
    const response = await prompt(server, session.id, 'count');
    const stream = sseMessages(response);
    const before: SseMessage[] = [];
    await readUntil(stream, 'text_delta', before);
    await readUntil(stream, 'text_delta', before);
    // Dropping the body closes the connection; the run goes on without a reader.
    await stream.return(undefined);
    const lastSeen = before.at(-1)!.id;

    const again = await server.request(`/v1/sessions/${session.id}/events`, {
      headers: { 'last-event-id': String(lastSeen) },
    });
    expect(again.status).toBe(200);
    const after = await allSseMessages(again);
    expect(after[0]!.id).toBe(lastSeen + 1);
    const joined = [...before, ...after];
    expect(joined.map((m) => m.id)).toEqual(joined.map((_m, index) => index + 1));
    expect(joined.at(-1)!.data).toMatchObject({ type: 'result', status: 'complete' });
    // The whole run, replayed from the start, is exactly what the two connections got together.
    const replay = await allSseMessages(await server.request(`/v1/sessions/${session.id}/events`));
    expect(replay).toEqual(joined);
    const text = joined.flatMap((m) => (m.data.type === 'text_delta' ? [m.data.text] : [])).join('');
    expect(text).toBe('one two three four five six seven eight nine ten');
    // A Last-Event-ID that is not an id is refused.
    const notAnId = await server.request(`/v1/sessions/${session.id}/events`, {
      headers: { 'last-event-id': 'x' },
    });
    expect(notAnId.status).toBe(400);
  });

  it('an approval is answered through the command endpoint, and the write lands on the host', async () => {
    await using ws = await hostDir('serve-approval-');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_write',
            name: 'write_file',
            input: { path: 'out.txt', content: 'approved\n' },
          },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Wrote it.' }] },
    ]);
    await using server = await startSkateServe(['--workspace', ws.path], serveEnv(api.url));
    const session = await createSession(server);
    expect(session.approval).toBe('ask');
    const stream = sseMessages(await prompt(server, session.id, 'write out.txt'));
    const seen = await readUntil(stream, 'approval_request');
    const request = seen.at(-1)!.data as Extract<StreamMessage, { type: 'approval_request' }>;
    expect(request).toMatchObject({ name: 'write_file', effect: 'write', callId: 'tu_write' });
    expect(existsSync(path.join(ws.path, 'out.txt'))).toBe(false);
    // An answer to a request that does not exist is refused, and the real one still waits.
    const wrong = await command(server, session.id, {
      type: 'approval_response',
      requestId: 'no-such-request',
      decision: 'approve',
    });
    expect(wrong.status).toBe(409);
    expect((await errorOf(wrong)).code).toBe('not_pending');
    const answer = await command(server, session.id, {
      type: 'approval_response',
      requestId: request.requestId,
      decision: 'approve',
    });
    expect(answer.status).toBe(202);
    await readUntil(stream, 'result', seen);
    const result = seen.find((m) => m.data.type === 'tool_call_result')!.data;
    expect(result).toMatchObject({ name: 'write_file', isError: false });
    expect(await readFile(path.join(ws.path, 'out.txt'), 'utf8')).toBe('approved\n');
    expect(seen.at(-1)!.data).toMatchObject({ status: 'complete', finalMessage: 'Wrote it.' });
  });

  it('ask_user and the turn cap are answered through the command endpoint too', async () => {
    await using ws = await hostDir('serve-ask-');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_ask',
            name: 'ask_user',
            input: { questions: [{ question: 'Which colour?', options: ['red', 'blue'] }] },
          },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Blue it is.' }] },
    ]);
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--max-turns', '1'],
      serveEnv(api.url),
    );
    const session = await createSession(server);
    const stream = sseMessages(await prompt(server, session.id, 'pick a colour'));
    const seen = await readUntil(stream, 'ask_user_request');
    const ask = seen.at(-1)!.data as Extract<StreamMessage, { type: 'ask_user_request' }>;
    expect(ask.questions).toEqual([{ question: 'Which colour?', options: ['red', 'blue'] }]);
    // An answer of the wrong kind for this request is refused; the right one is taken.
    const wrongKind = await command(server, session.id, {
      type: 'approval_response',
      requestId: ask.requestId,
      decision: 'approve',
    });
    expect(wrongKind.status).toBe(409);
    expect((await errorOf(wrongKind)).message).toMatch(/waits for ask_user_response, not approval_response/);
    const answered = await command(server, session.id, {
      type: 'ask_user_response',
      requestId: ask.requestId,
      answers: ['blue'],
    });
    expect(answered.status).toBe(202);
    await readUntil(stream, 'loop_cap_reached', seen);
    const cap = seen.at(-1)!.data as Extract<StreamMessage, { type: 'loop_cap_reached' }>;
    const goOn = await command(server, session.id, {
      type: 'loop_decision',
      requestId: cap.requestId,
      decision: 'continue',
    });
    expect(goOn.status).toBe(202);
    await readUntil(stream, 'result', seen);
    const result = seen.find((m) => m.data.type === 'tool_call_result')!.data as { output: string };
    expect(result.output).toContain('A: blue');
    expect(seen.at(-1)!.data).toMatchObject({ status: 'complete', finalMessage: 'Blue it is.' });
    // The model was told the answer.
    expect(JSON.stringify(api.requests[1]!.body!.messages)).toContain('A: blue');
  });

  it("two concurrent sessions in different workspaces do not see or touch each other's files", async () => {
    await using root = await hostDir('serve-two-');
    const [a, b] = [path.join(root.path, 'a'), path.join(root.path, 'b')];
    await Promise.all([mkdir(a), mkdir(b)]);
    await writeFile(path.join(a, 'secret-a.txt'), 'only for a\n');
    // A server policy whose sessions read and write their own workspace only.
    const execute = JSON.parse(
      await readFile(path.join(projectRoot(), 'sandbox-policies', 'execute.json'), 'utf8'),
    );
    execute.name = 'own-workspace';
    execute.filesystem.read.allow = ['${workspace}'];
    delete execute.$schema;
    const policyFile = path.join(root.path, 'own-workspace.json');
    await writeFile(policyFile, JSON.stringify(execute));
    // Each session's requests carry its own prompt: the fake's replies are taken in order, so both ask the same.
    await using api = await fakeMessagesApi();
    const peek = (id: string): FakeReply => ({
      type: 'message',
      blocks: [
        { type: 'tool_use', id: `${id}_read`, name: 'read_file', input: { path: '../a/secret-a.txt' } },
        {
          type: 'tool_use',
          id: `${id}_write`,
          name: 'write_file',
          input: { path: '../a/from-b.txt', content: 'x' },
        },
        {
          type: 'tool_use',
          id: `${id}_own`,
          name: 'write_file',
          input: { path: 'mine.txt', content: 'mine' },
        },
        {
          type: 'tool_use',
          id: `${id}_ls`,
          name: 'shell',
          input: { command: 'ls ../a; cat ../a/secret-a.txt; env' },
        },
      ],
    });
    api.enqueue(peek('x'), peek('y'), slowText('done', 5), slowText('done', 5));
    await using server = await startSkateServe(
      ['--workspace', root.path, '--policy', policyFile, '--approval', 'auto'],
      serveEnv(api.url),
    );
    const [sa, sb] = await Promise.all([
      createSession(server, { workspace: 'a' }),
      createSession(server, { workspace: b }),
    ]);
    expect([sa.workspace, sb.workspace]).toEqual([a, b]);
    const [ra, rb] = await Promise.all([
      prompt(server, sa.id, 'peek').then(allSseMessages),
      prompt(server, sb.id, 'peek').then(allSseMessages),
    ]);
    for (const run of [ra, rb])
      expect(run.at(-1)!.data).toMatchObject({ type: 'result', status: 'complete' });
    const results = (run: SseMessage[]) =>
      run.flatMap((m) => (m.data.type === 'tool_call_result' ? [m.data] : []));
    // Session a reads its own file and writes its own workspace.
    const inA = results(ra);
    expect(inA.find((r) => r.id.endsWith('_read'))).toMatchObject({ isError: false });
    expect(inA.find((r) => r.id.endsWith('_read'))!.output).toContain('only for a');
    // Session b can neither read a's file nor write there, by the tools or by the shell.
    const inB = results(rb);
    expect(inB.find((r) => r.id.endsWith('_read'))).toMatchObject({ isError: true });
    expect(inA.find((r) => r.id.endsWith('_ls'))!.output).toContain('only for a');
    expect(inB.find((r) => r.id.endsWith('_ls'))!.output).not.toContain('only for a');
    expect(inB.find((r) => r.id.endsWith('_ls'))!.output).toMatch(/No such file|cannot access/);
    // Neither the server's token nor the API key reaches a sandbox.
    for (const run of [inA, inB]) {
      const env = run.find((r) => r.id.endsWith('_ls'))!.output;
      expect(env).toContain('SKATE_SANDBOX=1');
      expect(env).not.toContain(SERVE_TOKEN);
      expect(env).not.toContain(KEY);
    }
    // On the host: each wrote its own workspace only; a's `../a/from-b.txt` is its own directory, b's was refused.
    expect(await readFile(path.join(a, 'mine.txt'), 'utf8')).toBe('mine');
    expect(await readFile(path.join(b, 'mine.txt'), 'utf8')).toBe('mine');
    const writesFromB = inB.find((r) => r.id.endsWith('_write'))!;
    expect(writesFromB.isError).toBe(true);
    const writesFromA = inA.find((r) => r.id.endsWith('_write'))!;
    expect(writesFromA.isError).toBe(false);
    expect(await readFile(path.join(a, 'from-b.txt'), 'utf8')).toBe('x');
    expect(existsSync(path.join(root.path, 'from-b.txt'))).toBe(false);
    expect(existsSync(path.join(b, 'from-b.txt'))).toBe(false);
  });

  it('answers a bad token, bad JSON, an oversized body, an unknown session or route with a clear 4xx', async () => {
    await using ws = await hostDir('serve-errors-');
    await using api = await fakeMessagesApi();
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--max-body-bytes', '1024'],
      serveEnv(api.url),
    );
    const noToken = await fetch(`${server.url}/v1/sessions`, {
      method: 'POST',
      headers: JSON_BODY,
      body: '{}',
    });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await errorOf(noToken)).code).toBe('unauthorized');
    const badToken = await fetch(`${server.url}/openapi.json`, {
      headers: { authorization: `Bearer ${SERVE_TOKEN}x` },
    });
    expect(badToken.status).toBe(401);
    // Nothing was started by the refused request.
    const listed = (await (await server.request('/v1/sessions')).json()) as { sessions: SessionInfo[] };
    expect(listed.sessions).toEqual([]);

    const badJson = await server.request('/v1/sessions', {
      method: 'POST',
      headers: JSON_BODY,
      body: '{"workspace":',
    });
    expect(badJson.status).toBe(400);
    expect(await errorOf(badJson)).toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/not valid JSON/),
    });
    const badShape = await server.request('/v1/sessions', {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ policy: 'Full Access' }),
    });
    expect(badShape.status).toBe(400);
    expect((await errorOf(badShape)).message).toMatch(/policy/);
    const tooBig = await server.request('/v1/sessions', {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ model: 'x'.repeat(4096) }),
    });
    expect(tooBig.status).toBe(413);
    expect((await errorOf(tooBig)).code).toBe('payload_too_large');
    const unknown = await server.request('/v1/sessions/0190c0de-0000-7000-8000-000000000000/prompt', {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ text: 'hi' }),
    });
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).message).toMatch(/no session/);
    expect((await server.request('/v1/nothing')).status).toBe(404);
    const wrongMethod = await server.request('/v1/sessions', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    // A policy wider than the server's, or a workspace outside it, is refused.
    for (const body of [{ policy: 'full' }, { network: 'on' }, { workspace: '/' }, { approval: 'auto' }]) {
      const wider = await server.request('/v1/sessions', {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify(body),
      });
      expect(wider.status, JSON.stringify(body)).toBe(403);
      expect((await errorOf(wider)).code).toBe('forbidden');
    }
    const narrower = await createSession(server, { policy: 'readonly', approval: 'deny-writes' });
    expect(narrower).toMatchObject({ policy: 'readonly', approval: 'deny-writes' });
    const openapi = await server.request('/openapi.json');
    const document = (await openapi.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/v1/sessions/{id}/prompt');
  });

  it('a second prompt while one runs is a 409; an interrupt ends the first as cancelled', async () => {
    await using ws = await hostDir('serve-busy-');
    await using api = await fakeMessagesApi([slowText('a long answer that takes its time to arrive', 100)]);
    await using server = await startSkateServe(['--workspace', ws.path], serveEnv(api.url));
    const session = await createSession(server);
    const stream = sseMessages(await prompt(server, session.id, 'first'));
    const seen = await readUntil(stream, 'text_delta');
    const second = await prompt(server, session.id, 'second');
    expect(second.status).toBe(409);
    expect(await errorOf(second)).toMatchObject({
      code: 'busy',
      message: expect.stringMatching(/interrupt/),
    });
    const listed = (await (await server.request(`/v1/sessions/${session.id}`)).json()) as SessionInfo;
    expect(listed.status).toBe('running');
    expect((await command(server, session.id, { type: 'interrupt' })).status).toBe(202);
    await readUntil(stream, 'result', seen);
    expect(seen.at(-1)!.data).toMatchObject({ type: 'result', status: 'cancelled' });
    // Only the second prompt's refusal was lost: the session takes prompts again.
    api.enqueue({ type: 'message', blocks: [{ type: 'text', text: 'ok' }] });
    const json = await prompt(server, session.id, 'third', { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    const body = (await json.json()) as PromptJsonResponse;
    expect(body.result).toMatchObject({ status: 'complete', finalMessage: 'ok' });
    expect(body.events.map((e) => e.type)).toContain('text_delta');
  });

  it("stops an idle session's executor and resumes it from its log on the next prompt; forks", async () => {
    await using ws = await hostDir('serve-idle-');
    await using api = await fakeMessagesApi([
      { type: 'message', blocks: [{ type: 'text', text: 'first answer' }] },
      { type: 'message', blocks: [{ type: 'text', text: 'second answer' }] },
    ]);
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--idle-timeout', '1'],
      serveEnv(api.url),
    );
    const session = await createSession(server);
    await allSseMessages(await prompt(server, session.id, 'one'));
    const executors = await processDescendants(server.child.pid!);
    expect(executors.length).toBeGreaterThan(0);
    const stopped = await eventually(async () => {
      const info = (await (await server.request(`/v1/sessions/${session.id}`)).json()) as SessionInfo;
      return info.status === 'stopped';
    }, 10_000);
    expect(stopped).toBe(true);
    expect(await eventually(async () => (await processDescendants(server.child.pid!)).length === 0)).toBe(
      true,
    );
    const again = await allSseMessages(await prompt(server, session.id, 'two'));
    expect(again.at(-1)!.data).toMatchObject({ status: 'complete', finalMessage: 'second answer' });
    // The restarted agent carried the conversation: the second request holds the first exchange.
    const roles = api.requests[1]!.body!.messages.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'user']);
    const forked = await server.request(`/v1/sessions/${session.id}/fork`, {
      method: 'POST',
      headers: JSON_BODY,
      body: '{}',
    });
    expect(forked.status).toBe(201);
    const fork = (await forked.json()) as SessionInfo;
    expect(fork.id).not.toBe(session.id);
    const transcript = (await (await server.request(`/v1/sessions/${fork.id}/transcript`)).json()) as {
      header: { forkedFrom?: { sessionId: string } };
      events: unknown[];
    };
    expect(transcript.header.forkedFrom?.sessionId).toBe(session.id);
    expect(transcript.events.length).toBe(4);
    const deleted = await server.request(`/v1/sessions/${fork.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await server.request(`/v1/sessions/${fork.id}`)).status).toBe(404);
  });

  it('shuts down on SIGTERM: the run is interrupted, its stream ends with the result, nothing is left', async () => {
    await using ws = await hostDir('serve-sigterm-');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'tool_use', id: 'tu_sleep', name: 'shell', input: { command: 'echo started; sleep 30' } },
        ],
      },
    ]);
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--approval', 'auto'],
      serveEnv(api.url),
    );
    const session = await createSession(server);
    const stream = sseMessages(await prompt(server, session.id, 'sleep'));
    const seen = await readUntil(stream, 'tool_output_line');
    const below = await processDescendants(server.child.pid!);
    expect(below.length).toBeGreaterThan(1);
    server.child.kill('SIGTERM');
    await readUntil(stream, 'result', seen);
    expect(seen.at(-1)!.data).toMatchObject({ type: 'result', status: 'cancelled' });
    expect(await server.exited()).toBe(0);
    for (const pid of below) expect(await eventually(async () => !(await isAlive(pid)))).toBe(true);
    // The log was flushed and closed: the transcript on disk holds the prompt.
    const logs = path.join(ws.path, '.skate', 'sessions', `${session.id}.jsonl`);
    expect(await readFile(logs, 'utf8')).toContain('"sleep"');
  });

  it('carries a small load: 6 sessions × 3 prompts at once, every run complete', async () => {
    await using ws = await hostDir('serve-load-');
    await using api = await fakeMessagesApi(
      Array.from(
        { length: 18 },
        (_unused, index): FakeReply => ({
          type: 'message',
          blocks: [{ type: 'text', text: `answer ${index}` }],
        }),
      ),
    );
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--max-runs', '6'],
      serveEnv(api.url),
    );
    const started = performance.now();
    const sessions = await Promise.all(Array.from({ length: 6 }, () => createSession(server)));
    const runs = await Promise.all(
      sessions.map(async (session) => {
        const statuses: string[] = [];
        for (let index = 0; index < 3; index++) {
          const messages = await allSseMessages(await prompt(server, session.id, `prompt ${index}`));
          const ids = messages.map((m) => m.id);
          expect(ids).toEqual(ids.map((_id, offset) => ids[0]! + offset));
          statuses.push((messages.at(-1)!.data as { status: string }).status);
        }
        return statuses;
      }),
    );
    expect(runs.flat()).toEqual(Array(18).fill('complete'));
    expect(performance.now() - started).toBeLessThan(30_000);
    const listed = (await (await server.request('/v1/sessions')).json()) as { sessions: SessionInfo[] };
    expect(listed.sessions.map((s) => s.lastEventId).every((id) => id > 0)).toBe(true);
  });

  it('refuses bad flags and a short token before anything starts', async () => {
    const env = { ...process.env, ANTHROPIC_API_KEY: KEY, SKATE_SERVE_TOKEN: SERVE_TOKEN };
    const noListen = await runCli(['serve'], { env });
    expect(noListen.code).toBe(2);
    expect(noListen.stderr).toMatch(/needs --listen HOST:PORT/);
    const badListen = await runCli(['serve', '--listen', 'localhost'], { env });
    expect(badListen.code).toBe(2);
    expect(badListen.stderr).toMatch(/HOST:PORT/);
    const headless = await runCli(['serve', '--listen', '127.0.0.1:0', '--output-format', 'json'], { env });
    expect(headless.code).toBe(2);
    expect(headless.stderr).toMatch(/drop --output-format/);
    const short = await runCli(['serve', '--listen', '127.0.0.1:0'], {
      env: { ...env, SKATE_SERVE_TOKEN: 'short' },
    });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/SKATE_SERVE_TOKEN is shorter than 16 characters/);
    expect(short.stderr).not.toMatch(/listening/);
  });

  it('generates a token and prints it once when none is given', async () => {
    await using ws = await hostDir('serve-token-');
    await using api = await fakeMessagesApi();
    await using server = await startSkateServe(['--workspace', ws.path], {
      ...serveEnv(api.url),
      SKATE_SERVE_TOKEN: '',
    });
    const tokenLine = /token \(send as .*\): (\S+)\n/;
    expect(await eventually(() => tokenLine.test(server.stderr()))).toBe(true);
    const token = tokenLine.exec(server.stderr())?.[1];
    expect(token).toBeDefined();
    expect(token!.length).toBeGreaterThanOrEqual(16);
    expect(server.stderr().split(token!).length).toBe(2);
    expect(
      (await fetch(`${server.url}/v1/sessions`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
    expect((await server.request('/v1/sessions')).status).toBe(401);
  });
});
