import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpServerHandle, mcpServerPolicy } from '../../harness/mcp/mcp-server-handle.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { connectionCounter, testMcpHttpServer } from '../support/mcp-http-server.js';
import { testPolicy } from '../support/policies.js';
import { runCli } from '../support/run-cli.js';
import { sandboxedExecutor } from '../support/sandboxed-executor.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const noSandbox = !(await probeSandbox()).available;
const TOKEN = 'remote-mcp-secret-9c41d7e2b8';

/**
 * A remote MCP server is reached from an executor of its own whose network is the server's
 * host:port alone (through the allowlist proxy); its headers reach that executor alone. Each case
 * counts, on the host, what reached which listener.
 */
describe.skipIf(noSandbox)("a remote MCP server's executor", () => {
  it("reaches the server's host:port and no other host, even when the agent's network is on", async () => {
    await using ws = await hostDir('mcp-remote-sec-');
    await using server = await testMcpHttpServer({ transport: 'http' });
    await using other = await connectionCounter();
    const agent = testPolicy(ws.path, { network: { mode: 'on' } });
    const policy = mcpServerPolicy('remote', { type: 'http', url: server.url }, agent, ws.path);
    expect(policy.network).toEqual({ mode: 'allowlist', allow: [`127.0.0.1:${server.port}`], deny: [] });
    expect(policy.write.allow).toEqual([]);
    // The same policy, with a shell to try: what a compromised executor could do, it cannot reach further.
    await using executor = await sandboxedExecutor(policy);
    const curl = async (args: string) =>
      (await executor.sh(`curl -sS --max-time 5 -o /dev/null -w 'HTTP %{http_code}\\n' ${args} 2>&1`)).output;
    expect(await curl(`http://127.0.0.1:${server.port}/mcp`)).toMatch(/HTTP [1-5]\d\d/);
    expect(server.connections).toBeGreaterThan(0);
    // Through the proxy (the one way out), another port of the same loopback is refused.
    const viaProxy = "--proxy http://127.0.0.1:3128 --noproxy ''";
    expect(await curl(`${viaProxy} http://127.0.0.1:${other.port}/`)).toContain('HTTP 403');
    expect(await curl(`${viaProxy} http://localhost:${other.port}/`)).toContain('HTTP 403');
    // Straight, it finds only the sandbox's own loopback, where nothing listens on that port.
    expect(await curl(`http://127.0.0.1:${other.port}/`)).toContain('HTTP 000');
    expect(other.count).toBe(0);
  }, 60_000);

  it("refuses a host the agent's policy denies, and a redirect to another host is never followed", async () => {
    await using ws = await hostDir('mcp-remote-sec-');
    await using other = await connectionCounter();
    const agent = testPolicy(ws.path, {
      network: { mode: 'allowlist', allow: ['example.test'], deny: ['denied.test'] },
    });
    expect(() =>
      mcpServerPolicy('remote', { type: 'http', url: 'https://denied.test/mcp' }, agent, ws.path),
    ).toThrow(/deny list/);
    // A hostile server answering every request with a redirect to a listener of the host's.
    let redirects = 0;
    const hostile = http.createServer((_req, res) => {
      redirects++;
      res.writeHead(307, { location: `http://127.0.0.1:${other.port}/mcp` }).end();
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    const port = (hostile.address() as AddressInfo).port;
    const handle = new McpServerHandle({
      name: 'hostile',
      config: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
      workspace: ws.path,
      sandbox: 'required',
      agentPolicy: async () => agent,
      idleMs: 60_000,
      startTimeoutMs: 10_000,
    });
    try {
      await expect(handle.discover()).rejects.toThrow(/MCP server "hostile"/);
      expect(redirects).toBeGreaterThan(0);
      expect(other.count).toBe(0);
    } finally {
      await handle.stop();
      hostile.closeAllConnections();
      await new Promise<void>((resolve) => hostile.close(() => resolve()));
    }
  }, 60_000);

  it("keeps its header out of every other executor's environment, the model's requests and the session log", async () => {
    await using home = await hostDir('mcp-remote-sec-home-');
    await using ws = await hostDir('mcp-remote-sec-ws-');
    await using server = await testMcpHttpServer({ transport: 'http', authorization: `Bearer ${TOKEN}` });
    await writeSkateSettings(home.path, {
      mcpServers: {
        remote: { type: 'http', url: server.url, headers: { Authorization: `Bearer ${TOKEN}` } },
      },
    });
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'tool_use', id: 's1', name: 'shell', input: { command: 'env; cat /proc/self/environ' } },
          { type: 'tool_use', id: 'm1', name: 'mcp__remote__echo', input: { text: 'hi' } },
        ],
        stopReason: 'tool_use',
      },
      { type: 'message', blocks: [{ type: 'text', text: 'done' }] },
    ]);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home.path,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: api.url,
      // The user exported the token the header is made of; `full` passes the whole environment on.
      MCP_REMOTE_TOKEN: TOKEN,
    };
    delete env.XDG_CACHE_HOME;
    const result = await runCli(
      ['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path, '--policy', 'full'],
      { env, timeoutMs: 90_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: string; output?: string; isError?: boolean });
    const shell = lines.find((line) => line.type === 'tool_call_result' && line.id === 's1');
    const echo = lines.find((line) => line.type === 'tool_call_result' && line.id === 'm1');
    expect(echo).toMatchObject({ isError: false, output: 'remote echo: hi' });
    // The agent's commands ran with the environment (PATH is there), without the token under any name.
    expect(shell?.output).toContain('PATH=');
    expect(shell?.output).not.toContain(TOKEN);
    expect(server.authorizations.every((value) => value === `Bearer ${TOKEN}`)).toBe(true);
    expect(JSON.stringify(api.requests.map((r) => r.body))).not.toContain(TOKEN);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    const logs = path.join(ws.path, '.skate', 'sessions');
    for (const file of await readdir(logs)) {
      expect(await readFile(path.join(logs, file), 'utf8')).not.toContain(TOKEN);
    }
  }, 120_000);
});
