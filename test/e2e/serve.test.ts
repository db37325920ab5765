import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/serve-api.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { allSseMessages, startSkateServe } from '../support/skate-serve.js';

const KEY = 'sk-ant-test-key-for-serve';

function serveEnv(baseUrl: string): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: baseUrl };
}

const JSON_BODY = { 'content-type': 'application/json' };

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
});
