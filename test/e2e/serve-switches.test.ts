import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, knownModels } from '../../harness/provider/model-catalog.js';
import type { ServeErrorBody, SessionInfo, StreamMessage } from '../../shared/serve-api.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { eventually } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import { allSseMessages, type SkateServe, startSkateServe } from '../support/skate-serve.js';

const KEY = 'sk-ant-test-key-for-serve-switches';
const JSON_BODY = { 'content-type': 'application/json' };

function serveEnv(baseUrl: string): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: baseUrl };
}

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

function command(server: SkateServe, id: string, body: Record<string, unknown>): Promise<Response> {
  return server.request(`/v1/sessions/${id}/commands`, {
    method: 'POST',
    headers: JSON_BODY,
    body: JSON.stringify(body),
  });
}

/** A switch that must succeed: the session after it. */
async function switched(server: SkateServe, id: string, body: Record<string, unknown>): Promise<SessionInfo> {
  const response = await command(server, id, body);
  const json = (await response.json()) as SessionInfo & ServeErrorBody;
  if (response.status !== 200)
    throw new Error(`${response.status} ${JSON.stringify(json)}\n${server.stderr()}`);
  return json;
}

async function run(server: SkateServe, id: string, text: string): Promise<StreamMessage[]> {
  const response = await server.request(`/v1/sessions/${id}/prompt`, {
    method: 'POST',
    headers: JSON_BODY,
    body: JSON.stringify({ text }),
  });
  expect(response.status).toBe(200);
  return (await allSseMessages(response)).map((message) => message.data);
}

async function refusal(response: Response): Promise<{ status: number } & ServeErrorBody['error']> {
  return { status: response.status, ...((await response.json()) as ServeErrorBody).error };
}

// Workspaces outside /tmp: sandboxes get a private /tmp, so the host could not see writes there.
describe('skate serve: plan/execute, model, network, approval timeouts, CORS', () => {
  it('plans under the plan policy (a write outside the plan file fails on the host), then executes the plan', async () => {
    await using ws = await hostDir('serve-plan-');
    const plan = '# Plan\nPLAN-STEP-ONE: create hello.txt\n';
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'tool_use', id: 'tu_sh', name: 'shell', input: { command: 'echo no > outside.txt' } },
          {
            type: 'tool_use',
            id: 'tu_plan',
            name: 'write_file',
            input: { path: '.skate/plan.md', content: plan },
          },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'The plan is written.' }] },
      {
        type: 'message',
        blocks: [
          { type: 'tool_use', id: 'tu_w', name: 'write_file', input: { path: 'hello.txt', content: 'hi\n' } },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Done.' }] },
    ]);
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--approval', 'auto', '--idle-timeout', '1'],
      serveEnv(api.url),
    );
    const session = await createSession(server);
    expect(session).toMatchObject({ mode: 'agent', policy: 'execute', agentSessionId: session.id });

    const planning = await switched(server, session.id, { type: 'set_activity', activity: 'plan' });
    expect(planning).toMatchObject({
      id: session.id,
      mode: 'plan',
      policy: 'plan',
      network: 'off',
      planFile: path.join(ws.path, '.skate', 'plan.md'),
      status: 'idle',
    });
    expect(planning.agentSessionId).not.toBe(session.id);
    // Planning keeps the network off, whatever is asked.
    expect(
      await refusal(await command(server, session.id, { type: 'set_network', network: 'off' })),
    ).toMatchObject({ status: 403, code: 'forbidden' });

    const planned = await run(server, session.id, 'plan hello.txt');
    expect(planned.at(-1)).toMatchObject({ type: 'result', status: 'complete' });
    const shell = planned.find((m) => m.type === 'tool_call_result' && m.name === 'shell') as {
      output: string;
    };
    expect(shell.output).toContain('Read-only file system');
    expect(existsSync(path.join(ws.path, 'outside.txt'))).toBe(false);
    expect(await readFile(path.join(ws.path, '.skate', 'plan.md'), 'utf8')).toBe(plan);
    expect(JSON.stringify(api.requests[0]!.body!.system)).toContain('Planning mode');
    // The transcript is the planner's log.
    const transcript = (await (await server.request(`/v1/sessions/${session.id}/transcript`)).json()) as {
      header: { id: string };
    };
    expect(transcript.header.id).toBe(planning.agentSessionId);
    // An idle planner is stopped like any agent, and comes back from its own log, still planning.
    const info = async (): Promise<SessionInfo> =>
      (await (await server.request(`/v1/sessions/${session.id}`)).json()) as SessionInfo;
    expect(await eventually(async () => (await info()).status === 'stopped')).toBe(true);
    expect(await info()).toMatchObject({ mode: 'plan', agentSessionId: planning.agentSessionId });

    const executing = await switched(server, session.id, { type: 'set_activity', activity: 'execute' });
    expect(executing).toMatchObject({ id: session.id, mode: 'execute', policy: 'execute', network: 'off' });
    expect(executing.planFile).toBeUndefined();
    const done = await run(server, session.id, 'go');
    expect(done.at(-1)).toMatchObject({ type: 'result', status: 'complete', finalMessage: 'Done.' });
    const first = api.requests[2]!.body!;
    expect(JSON.stringify(first.system)).toContain('PLAN-STEP-ONE: create hello.txt');
    expect(first.messages).toHaveLength(1);
    expect(await readFile(path.join(ws.path, 'hello.txt'), 'utf8')).toBe('hi\n');
  });

  it('switches the model (seen in the next request) and the network within the server policy only', async () => {
    await using ws = await hostDir('serve-model-');
    await using api = await fakeMessagesApi([
      { type: 'message', blocks: [{ type: 'text', text: 'one' }] },
      { type: 'message', blocks: [{ type: 'text', text: 'two' }] },
      { type: 'message', blocks: [{ type: 'text', text: 'three slowly' }], chunkDelayMs: 300 },
    ]);
    await using server = await startSkateServe(['--workspace', ws.path], serveEnv(api.url));
    const session = await createSession(server);
    expect(session.model).toBe(DEFAULT_MODEL);
    await run(server, session.id, 'first');
    expect(api.requests[0]!.body!.model).toBe(DEFAULT_MODEL);
    const other = knownModels().find((model) => model !== DEFAULT_MODEL)!;
    expect(await switched(server, session.id, { type: 'set_model', model: other })).toMatchObject({
      model: other,
    });
    await run(server, session.id, 'second');
    expect(api.requests[1]!.body!.model).toBe(other);
    // Not during a run: the switch is refused, and the run goes on with the model it had.
    const third = run(server, session.id, 'third');
    expect(await eventually(() => api.requests.length === 3)).toBe(true);
    const during = await refusal(
      await command(server, session.id, { type: 'set_model', model: DEFAULT_MODEL }),
    );
    expect(during).toMatchObject({ status: 409, code: 'busy' });
    expect((await third).at(-1)).toMatchObject({ type: 'result', status: 'complete', model: other });

    const unknown = await refusal(await command(server, session.id, { type: 'set_model', model: 'gpt-9' }));
    expect(unknown).toMatchObject({ status: 400, code: 'unknown_model' });
    expect(unknown.message).toContain(other);
    const created = await server.request('/v1/sessions', {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ model: 'gpt-9' }),
    });
    expect(await refusal(created)).toMatchObject({ status: 400, code: 'unknown_model' });

    // The server's policy (execute) has the network off: a session may not turn it on.
    const executorBefore = (await (await server.request(`/v1/sessions/${session.id}`)).json()) as SessionInfo;
    const on = await refusal(await command(server, session.id, { type: 'set_network', network: 'on' }));
    expect(on).toMatchObject({ status: 403, code: 'forbidden' });
    expect(on.message).toMatch(/network on is wider than the server's policy/);
    expect(executorBefore.network).toBe('off');
    expect(((await (await server.request(`/v1/sessions/${session.id}`)).json()) as SessionInfo).network).toBe(
      'off',
    );

    // Where the server has it on, a session switches it off and on again, as its executor reports.
    await using open = await startSkateServe(['--workspace', ws.path, '--network', 'on'], serveEnv(api.url));
    const netted = await createSession(open);
    expect(netted.network).toBe('on');
    expect(await switched(open, netted.id, { type: 'set_network', network: 'off' })).toMatchObject({
      network: 'off',
    });
    expect(await switched(open, netted.id, { type: 'set_network', network: 'on' })).toMatchObject({
      network: 'on',
    });
  });

  it('answers an approval nobody answers as denied after --approval-timeout, and says so', async () => {
    await using ws = await hostDir('serve-timeout-');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_write',
            name: 'write_file',
            input: { path: 'out.txt', content: 'never\n' },
          },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'It was denied.' }] },
    ]);
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--approval-timeout', '1'],
      serveEnv(api.url),
    );
    const session = await createSession(server);
    const started = performance.now();
    const messages = await run(server, session.id, 'write out.txt');
    const elapsed = performance.now() - started;
    const request = messages.find((m) => m.type === 'approval_request') as { requestId: string };
    const timeout = messages.find((m) => m.type === 'request_timeout');
    expect(timeout).toEqual({
      type: 'request_timeout',
      requestId: request.requestId,
      answer: 'rejected',
      afterSeconds: 1,
    });
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    const types = messages.map((m) => m.type);
    expect(types.indexOf('request_timeout')).toBeLessThan(types.indexOf('tool_call_result'));
    expect(messages.find((m) => m.type === 'tool_call_result')).toMatchObject({ name: 'write_file' });
    expect(existsSync(path.join(ws.path, 'out.txt'))).toBe(false);
    expect(messages.at(-1)).toMatchObject({
      type: 'result',
      status: 'complete',
      finalMessage: 'It was denied.',
    });
    expect(JSON.stringify(api.requests[1]!.body!.messages.at(-1))).toContain('Nobody answered');
    // The request is no longer pending: a late answer is refused.
    const late = await command(server, session.id, {
      type: 'approval_response',
      requestId: request.requestId,
      decision: 'approve',
    });
    expect(await refusal(late)).toMatchObject({ status: 409, code: 'not_pending' });
  });

  it('answers CORS preflights for --cors origins only; the token is still required', async () => {
    await using ws = await hostDir('serve-cors-');
    await using api = await fakeMessagesApi([]);
    const origin = 'http://app.example.test:8080';
    await using server = await startSkateServe(
      ['--workspace', ws.path, '--cors', origin, '--cors', 'https://other.example.test'],
      serveEnv(api.url),
    );
    const preflight = (from: string, target = server): Promise<Response> =>
      fetch(`${target.url}/v1/sessions`, {
        method: 'OPTIONS',
        headers: {
          origin: from,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
    const allowed = await preflight(origin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization.*content-type/);
    const refused = await preflight('http://evil.example.test');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    // The real request still needs the token; its answer is readable by the allowed page either way.
    const noToken = await fetch(`${server.url}/v1/sessions`, { headers: { origin } });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('access-control-allow-origin')).toBe(origin);
    const withToken = await server.request('/v1/sessions', { headers: { origin } });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get('access-control-allow-origin')).toBe(origin);
    expect(withToken.headers.get('access-control-expose-headers')).toContain('x-skate-run-id');
    const otherOrigin = await server.request('/v1/sessions', {
      headers: { origin: 'http://evil.example.test' },
    });
    expect(otherOrigin.headers.get('access-control-allow-origin')).toBeNull();

    // Off by default: no origin gets a preflight through.
    await using closed = await startSkateServe(['--workspace', ws.path], serveEnv(api.url));
    const none = await preflight(origin, closed);
    expect(none.status).toBe(403);
    expect(none.headers.get('access-control-allow-origin')).toBeNull();

    const bad = await runCli(['serve', '--listen', '127.0.0.1:0', '--cors', 'http://x.test/path'], {
      env: serveEnv(api.url),
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--cors takes an origin');
  });
});
