import { describe, expect, it } from 'vitest';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { testMcpHttpServer } from '../support/mcp-http-server.js';
import { runCli } from '../support/run-cli.js';
import { sessionLogs } from '../support/session-logs.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { toolCallResults } from '../support/stream-json.js';

const TOKEN = 'mcp-remote-token-5f0c2a9e7d';

describe.each(['http', 'sse'] as const)('a remote (%s) MCP server', (transport) => {
  it('is listed and called from skate -p through an executor of its own, its header reaching the server alone, and not connected again until a call once its tools are known', async () => {
    await using home = await hostDir('mcp-remote-home-');
    await using ws = await hostDir('mcp-remote-ws-');
    await using server = await testMcpHttpServer({ transport, authorization: `Bearer ${TOKEN}` });
    await writeSkateSettings(home.path, {
      mcpServers: {
        remote: { type: transport, url: server.url, headers: { Authorization: `Bearer ${TOKEN}` } },
      },
    });
    const run = async (replies: FakeReply[]) => {
      await using api = await fakeMessagesApi(replies);
      const result = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
        env: cliEnv({ home: home.path, api: api.url }),
        timeoutMs: 90_000,
      });
      expect(result.code, result.stderr).toBe(0);
      return { result, requests: JSON.stringify(api.requests.map((r) => r.body)), api };
    };
    const first = await run([call('r1', 'mcp__remote__echo', { text: 'hi' }), text('done')]);
    expect(first.requests).toContain('"mcp__remote__echo"');
    const [echo] = toolCallResults(first.result.stdout);
    expect(echo).toMatchObject({ id: 'r1', isError: false, output: 'remote echo: hi' });
    expect(server.calls).toEqual([{ name: 'echo', args: { text: 'hi' } }]);
    // The header reached the server on every request, and nothing else: not the model, the output, the log.
    expect(server.authorizations.length).toBeGreaterThan(0);
    expect(server.authorizations.every((value) => value === `Bearer ${TOKEN}`)).toBe(true);
    expect(first.requests).not.toContain(TOKEN);
    expect(first.result.stdout).not.toContain(TOKEN);
    expect(first.result.stderr).not.toContain(TOKEN);
    expect(await sessionLogs(ws.path)).not.toContain(TOKEN);
    // Its manifest is remembered: a run without a call offers its tools and never connects.
    const connections = server.connections;
    const second = await run([text('nothing to do')]);
    expect(second.requests).toContain('"mcp__remote__echo"');
    expect(server.connections).toBe(connections);
  }, 240_000);
});
