import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import type { SessionInfo } from '../../shared/serve-api.js';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { eventually, pidsWithMarker } from '../support/processes.js';
import {
  allSseMessages,
  type SkateServe,
  type SseMessage,
  sseMessages,
  startSkateServe,
} from '../support/skate-serve.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { loggingSlowServer, logLines } from '../support/slow-mcp-server.js';

/**
 * Issue #22 in `skate serve`: a prompt naming an MCP prompt (`/mcp__server__prompt args`) is expanded
 * as in -p, the terminal UI and ACP; an MCP call's progress streams as tool_output_line events; and
 * interrupting a session during a slow MCP call reaches the server as notifications/cancelled.
 */
const FIXTURES = path.join(projectRoot(), 'test', 'fixtures', 'mcp');
const JSON_BODY = { 'content-type': 'application/json' };

async function serveWith(home: string, ws: string, api: string, servers: unknown): Promise<SkateServe> {
  await writeSkateSettings(home, { mcpServers: servers });
  const env = cliEnv({ home, api });
  return startSkateServe(['--workspace', ws, '--approval', 'auto'], env);
}

async function session(server: SkateServe): Promise<string> {
  const created = await server.request('/v1/sessions', { method: 'POST', headers: JSON_BODY, body: '{}' });
  expect(created.status, server.stderr()).toBe(201);
  return ((await created.json()) as SessionInfo).id;
}

const prompt = (server: SkateServe, id: string, body: string): Promise<Response> =>
  server.request(`/v1/sessions/${id}/prompt`, {
    method: 'POST',
    headers: JSON_BODY,
    body: JSON.stringify({ text: body }),
  });

function lastUserText(body: unknown): string {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.filter((m) => m.role === 'user').at(-1)!;
  if (typeof last.content === 'string') return last.content;
  return (last.content as { type: string; text?: string }[]).map((b) => b.text ?? '').join('\n');
}

const resultOf = (messages: SseMessage[]) =>
  messages.find((m) => m.event === 'result')?.data as
    | { error?: string; errorCode?: string; subtype?: string; status?: string }
    | undefined;

describe('MCP in skate serve (#22)', () => {
  it('a /mcp__server__prompt prompt is the server prompt’s turn; a wrong one is an error with no model request; progress streams', async () => {
    await using home = await hostDir('serve-mcp-home-');
    await using ws = await hostDir('serve-mcp-ws-');
    await using api = await fakeMessagesApi([
      text('Reviewed.'),
      call('p1', 'mcp__s__progress', { steps: 5, intervalMs: 300, message: 'scanning' }),
      text('Scanned.'),
    ]);
    await using server = await serveWith(home.path, ws.path, api.url, {
      p: { command: process.execPath, args: [path.join(FIXTURES, 'prompts-server.mjs')] },
      s: { command: process.execPath, args: [path.join(FIXTURES, 'slow-server.mjs')] },
    });
    const id = await session(server);
    const reviewed = await allSseMessages(
      await prompt(server, id, '/mcp__p__review src/app.ts error handling'),
    );
    expect(resultOf(reviewed)?.errorCode, JSON.stringify(reviewed.slice(-3))).toBeUndefined();
    expect(lastUserText(api.requests[0]?.body)).toContain(
      'PROMPT-REVIEW: review src/app.ts focusing on error handling.',
    );

    const missing = await allSseMessages(await prompt(server, id, '/mcp__p__review'));
    expect(resultOf(missing)).toMatchObject({ errorCode: 'mcp_prompt' });
    expect(resultOf(missing)?.error).toContain('missing file');
    expect(missing.some((m) => m.event === 'error')).toBe(true);
    const unknown = await allSseMessages(await prompt(server, id, '/mcp__p__nope'));
    expect(resultOf(unknown)).toMatchObject({ errorCode: 'mcp_prompt' });
    expect(api.requests).toHaveLength(1);

    const scanned = await allSseMessages(await prompt(server, id, 'scan'));
    const progress = scanned
      .filter((m) => m.event === 'tool_output_line')
      .map((m) => m.data as { stream: string; text: string });
    expect(progress.length, JSON.stringify(scanned.map((m) => m.event))).toBeGreaterThanOrEqual(2);
    for (const line of progress)
      expect(line).toMatchObject({ stream: 'progress', text: expect.stringMatching(/^\d\/5 scanning \d$/) });
  }, 120_000);

  it('interrupting a session during a slow MCP call sends the server notifications/cancelled, and leaves no process once it stops', async () => {
    await using home = await hostDir('serve-mcp-cancel-home-');
    await using ws = await hostDir('serve-mcp-cancel-ws-');
    const { config, events, marker } = await loggingSlowServer(ws.path, 'serve-slow');
    await using api = await fakeMessagesApi([
      call('slow1', 'mcp__s__slow', {}),
      text('unused'),
      text('After.'),
    ]);
    const server = await serveWith(home.path, ws.path, api.url, { s: config });
    try {
      const id = await session(server);
      const stream = sseMessages(await prompt(server, id, 'take your time'));
      const read: SseMessage[] = [];
      const reading = (async () => {
        for await (const message of stream) read.push(message);
      })();
      const calling = async () => (await logLines(events)).some((line) => line.startsWith('slow started'));
      expect(await eventually(calling, 60_000), server.stderr()).toBe(true);
      const interrupted = await server.request(`/v1/sessions/${id}/commands`, {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify({ type: 'interrupt' }),
      });
      expect(interrupted.status).toBeLessThan(300);
      await reading;
      expect(resultOf(read)).toMatchObject({ status: 'cancelled' });
      const log = await logLines(events);
      const requestId = log.find((line) => line.startsWith('slow started'))?.split(' ')[2];
      const cancelled = async () =>
        (await logLines(events)).some((line) => line.startsWith(`cancelled ${requestId} `));
      expect(await eventually(cancelled, 10_000)).toBe(true);
      expect(await logLines(events)).not.toContain('slow finished');
      // The session goes on: its next prompt runs.
      const after = await allSseMessages(await prompt(server, id, 'and now'));
      expect(resultOf(after)?.status, JSON.stringify(after.slice(-2))).toBe('complete');
    } finally {
      await server.stop();
    }
    // The server's process (its executor's child, under bubblewrap) is gone with skate serve.
    expect(await eventually(async () => (await pidsWithMarker(marker)).length === 0)).toBe(true);
  }, 120_000);
});
