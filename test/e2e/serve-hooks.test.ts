import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import type { SessionInfo } from '../../shared/serve-api.js';
import { cliEnv } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { allSseMessages, startSkateServe } from '../support/skate-serve.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const SCRIPT = path.join(projectRoot(), 'test', 'fixtures', 'hooks', 'block-rm-rf.sh');

describe('hooks over skate serve (HTTP + SSE)', () => {
  it("a user's PreToolUse hook denies a session's call, and its decision streams as a hook_decision event", async () => {
    await using home = await hostDir('serve-hooks-home-');
    await using ws = await hostDir('serve-hooks-ws-');
    await mkdir(path.join(ws.path, 'keep'));
    await writeSkateSettings(home.path, {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: SCRIPT }] }] },
    });
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'tu_rm', name: 'shell', input: { command: 'rm -rf keep' } }],
        stopReason: 'tool_use',
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Refused by a hook.' }] },
    ]);
    const env = cliEnv({ home: home.path, api: api.url });
    await using server = await startSkateServe(['--workspace', ws.path, '--approval', 'auto'], env);
    const json = { 'content-type': 'application/json' };
    const created = await server.request('/v1/sessions', { method: 'POST', headers: json, body: '{}' });
    expect(created.status, server.stderr()).toBe(201);
    const session = (await created.json()) as SessionInfo;
    const prompted = await server.request(`/v1/sessions/${session.id}/prompt`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ text: 'clean up' }),
    });
    expect(prompted.status).toBe(200);
    const messages = await allSseMessages(prompted);
    const decision = messages.find((message) => message.event === 'hook_decision');
    expect(decision, server.stderr()).toBeDefined();
    expect(decision!.data).toMatchObject({
      type: 'hook_decision',
      event: 'PreToolUse',
      outcome: 'deny',
      toolName: 'shell',
      source: 'user',
      exitCode: 2,
    });
    expect(existsSync(path.join(ws.path, 'keep'))).toBe(true);
  }, 60_000);
});
