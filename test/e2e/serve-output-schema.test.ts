import { describe, expect, it } from 'vitest';
import type { PromptJsonResponse, ServeErrorBody, SessionInfo } from '../../shared/serve-api.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { type SkateServe, startSkateServe } from '../support/skate-serve.js';

const env = (url: string): NodeJS.ProcessEnv => ({
  ...process.env,
  ANTHROPIC_API_KEY: 'sk-ant-test-key-for-serve',
  ANTHROPIC_BASE_URL: url,
});
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const SCHEMA = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['pass', 'fail'] } },
  required: ['verdict'],
};

async function prompt(server: SkateServe, id: string, body: Record<string, unknown>): Promise<Response> {
  return server.request(`/v1/sessions/${id}/prompt`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify(body),
  });
}

describe('skate serve: a prompt with outputSchema', () => {
  it('repairs an invalid answer once and returns structured_output; refuses an unusable schema with a 400', async () => {
    await using ws = await hostDir('serve-schema-');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'toolu_1', name: 'structured_output', input: { verdict: 'maybe' } }],
        stopReason: 'tool_use',
      },
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'toolu_2', name: 'structured_output', input: { verdict: 'pass' } }],
        stopReason: 'tool_use',
      },
    ]);
    await using server = await startSkateServe(['--workspace', ws.path], env(api.url));
    const created = await server.request('/v1/sessions', {
      method: 'POST',
      headers: JSON_HEADERS,
      body: '{}',
    });
    const session = (await created.json()) as SessionInfo;

    const bad = await prompt(server, session.id, { text: 'judge', outputSchema: { type: 'string' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ServeErrorBody).error.message).toContain('outputSchema');
    expect(api.requests).toHaveLength(0);

    const response = await prompt(server, session.id, { text: 'judge', outputSchema: SCHEMA });
    expect(response.status).toBe(200);
    const body = (await response.json()) as PromptJsonResponse;
    expect(body.result).toMatchObject({
      subtype: 'success',
      is_error: false,
      structured_output: { verdict: 'pass' },
    });
    expect(JSON.stringify(api.requests[1]?.body?.messages.at(-1))).toContain(
      'structured_output input is invalid',
    );
  });
});
