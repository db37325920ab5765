import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { startAcpEditor } from '../support/acp-editor.js';
import { cliEnv } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const SCRIPT = path.join(projectRoot(), 'test', 'fixtures', 'hooks', 'block-rm-rf.sh');

describe('hooks over ACP (the SDK as the editor)', () => {
  it("a user's PreToolUse hook denies the call, and the editor is told which hook decided what", async () => {
    await using home = await hostDir('acp-hooks-home-');
    await using ws = await hostDir('acp-hooks-ws-');
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
    await using editor = startAcpEditor(['--approval', 'auto'], env);
    const stopReason = await editor.run(async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] });
      const response = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'clean up' }],
      });
      return response.stopReason;
    });
    expect(stopReason, editor.stderr()).toBe('end_turn');
    expect(existsSync(path.join(ws.path, 'keep'))).toBe(true);
    expect(JSON.stringify(editor.updates)).toContain('hook PreToolUse(shell) denied it: Blocked by policy');
    expect(JSON.stringify(api.requests[1]?.body)).toContain('Blocked by policy');
  }, 60_000);
});
