import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { sessionFile } from '../../harness/session/session-paths.js';
import { loadSession } from '../../harness/session/session-reader.js';
import type { SessionInfo } from '../../shared/serve-api.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { eventually, pidsWithMarker } from '../support/processes.js';
import { allSseMessages, type SseMessage, sseMessages, startSkateServe } from '../support/skate-serve.js';

/**
 * Issue #22 in `skate serve`: an `interrupt` while a `/mcp__server__prompt` is being fetched from a
 * slow server ends the run cleanly (cancelled, no model request), reaches the server as
 * `notifications/cancelled`, and leaves the session usable and its log loadable; no process is
 * left once serve stops.
 */
const SLOW_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'slow-server.mjs');
const JSON_BODY = { 'content-type': 'application/json' };
const text = (t: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text: t }] });

const lines = async (file: string): Promise<string[]> =>
  existsSync(file) ? (await readFile(file, 'utf8')).trim().split('\n').filter(Boolean) : [];
const resultOf = (messages: SseMessage[]) =>
  messages.find((m) => m.event === 'result')?.data as { status?: string; errorCode?: string } | undefined;

describe('skate serve: interrupting an MCP prompt being fetched (#22)', () => {
  it('ends the run as cancelled without a model request, the server sees cancelled, the session goes on, its log loads, no process is left', async () => {
    await using home = await hostDir('serve-prompt-cancel-home-');
    await using ws = await hostDir('serve-prompt-cancel-ws-');
    await mkdir(path.join(ws.path, 'log'));
    const events = path.join(ws.path, 'log', 'events');
    const marker = `serve-slow-prompt-${randomUUID()}`;
    await using api = await fakeMessagesApi([text('After the interrupt.')]);
    await mkdir(path.join(home.path, '.skate'), { recursive: true });
    await writeFile(
      path.join(home.path, '.skate', 'settings.json'),
      JSON.stringify({
        mcpServers: {
          s: {
            command: process.execPath,
            args: [SLOW_SERVER, marker],
            env: { MCP_EVENT_LOG: events, MCP_SLOW_PROMPT: '1', MCP_SLOW_CALL_MS: '60000' },
            policy: { write: ['log'] },
          },
        },
      }),
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home.path,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: api.url,
    };
    delete env.XDG_CACHE_HOME;
    const server = await startSkateServe(['--workspace', ws.path, '--approval', 'auto'], env);
    let id = '';
    try {
      const created = await server.request('/v1/sessions', {
        method: 'POST',
        headers: JSON_BODY,
        body: '{}',
      });
      expect(created.status, server.stderr()).toBe(201);
      id = ((await created.json()) as SessionInfo).id;
      const prompt = (body: string): Promise<Response> =>
        server.request(`/v1/sessions/${id}/prompt`, {
          method: 'POST',
          headers: JSON_BODY,
          body: JSON.stringify({ text: body }),
        });

      const stream = sseMessages(await prompt('/mcp__s__slow-prompt'));
      const read: SseMessage[] = [];
      const reading = (async () => {
        for await (const message of stream) read.push(message);
      })();
      const fetching = async () => (await lines(events)).some((line) => line.startsWith('prompt started'));
      expect(await eventually(fetching, 60_000), server.stderr()).toBe(true);
      const startedAt = performance.now();
      const interrupted = await server.request(`/v1/sessions/${id}/commands`, {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify({ type: 'interrupt' }),
      });
      expect(interrupted.status).toBeLessThan(300);
      await reading;
      // Cleanly, and at once (the prompt would take 60 s): cancelled, no error event, no model request.
      expect(performance.now() - startedAt).toBeLessThan(15_000);
      expect(resultOf(read), JSON.stringify(read.slice(-3))).toMatchObject({ status: 'cancelled' });
      expect(resultOf(read)?.errorCode).toBeUndefined();
      expect(
        read.some((m) => m.event === 'error'),
        JSON.stringify(read),
      ).toBe(false);
      expect(api.requests).toHaveLength(0);
      const requestId = (await lines(events)).find((l) => l.startsWith('prompt started'))?.split(' ')[2];
      const cancelled = async () =>
        (await lines(events)).some((line) => line.startsWith(`cancelled ${requestId} `));
      expect(await eventually(cancelled, 10_000), (await lines(events)).join('\n')).toBe(true);
      expect(await lines(events)).not.toContain('prompt finished');

      // The session goes on: its next prompt is a model turn.
      const after = await allSseMessages(await prompt('and now'));
      expect(resultOf(after)?.status, JSON.stringify(after.slice(-2))).toBe('complete');
      expect(api.requests).toHaveLength(1);
      const transcript = await server.request(`/v1/sessions/${id}/transcript`);
      expect(transcript.status).toBe(200);
      expect(JSON.stringify(await transcript.json())).toContain('After the interrupt.');
    } finally {
      await server.stop();
    }
    // The server's process (its executor's child, under bubblewrap) is gone with skate serve.
    expect(await eventually(async () => (await pidsWithMarker(marker)).length === 0, 10_000)).toBe(true);
    // Its log loads whole with the loader `skate --resume` uses: no torn line, the later turn in it.
    const log = await loadSession(sessionFile(ws.path, id));
    expect(log.warnings).toEqual([]);
    expect(JSON.stringify(log.events)).toContain('After the interrupt.');
  }, 150_000);
});
