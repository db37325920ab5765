import { methods } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { startAcpEditor } from '../support/acp-editor.js';
import { cliEnv, textReply, toolCall } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { hitTarget } from '../support/network-upstreams.js';

const support = await probeSandbox();

describe.skipIf(!support.available)('a refused host over ACP (the SDK as the editor)', () => {
  it('asks the editor (a permission request naming host and port), and its "Allow once" lets the connection through', async () => {
    await using home = await hostDir('acp-net-home-');
    await using ws = await hostDir('acp-net-ws-');
    await using target = await hitTarget();
    const { hits, port } = target;
    await using api = await fakeMessagesApi([
      toolCall('tu_fetch', 'shell', {
        command: `${target.curlViaProxy('once')}; ${target.curlViaProxy('again')}`,
      }),
      textReply('Fetched once.'),
    ]);
    const env = cliEnv({ home: home.path, api: api.url });
    await using editor = startAcpEditor(['--approval', 'auto', '--network', 'example.com'], env);
    // First question: "Allow once" (option-0); the second connection asks again: skipped.
    editor.choices.push('option-0', 'skip');
    const stopReason = await editor.run(async (ctx) => {
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] });
      const response = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'fetch' }],
      });
      return response.stopReason;
    });
    expect(stopReason, editor.stderr()).toBe('end_turn');
    expect(editor.permissions).toHaveLength(2);
    expect(editor.permissions[0]?.toolCall.title).toContain(`127.0.0.1:${port}`);
    expect(editor.permissions[0]?.options.map((option) => option.name)).toContain('Allow for this session');
    expect(hits).toEqual(['/once']);
    // The second refusal is told to the editor as data.
    expect(JSON.stringify(editor.updates)).toContain(`network: refused 127.0.0.1:${port}`);
  }, 90_000);
});
