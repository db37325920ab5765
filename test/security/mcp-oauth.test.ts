/**
 * Remote MCP servers' OAuth (`skate mcp login`): the server (which may be hostile) names its
 * authorization server and that one's endpoints, and the login's callback is a listener anyone on
 * the machine can reach. Checked on the host: which endpoints were asked (a refused one never is),
 * what was stored, what every process below the harness holds in its environment and argv while
 * the server's executor runs, what a command in the agent's sandbox can read of the token store,
 * and what the model and the session log saw.
 */

import { existsSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { toolCall as call, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { loginEnv as env, loginViaCli } from '../support/mcp-login.js';
import {
  approveInBrowser,
  type McpOAuthServerOptions,
  testMcpOAuthServer,
} from '../support/mcp-oauth-server.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { eventually } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

async function configured(home: string, url: string): Promise<void> {
  await writeSkateSettings(home, { mcpServers: { remote: { type: 'http', url } } });
}

/** A documentation address no test machine routes (TEST-NET-1): plain http across a network. */
const FAR = 'http://192.0.2.1';

describe('MCP OAuth: what a hostile server can name is refused', () => {
  it.each<[string, McpOAuthServerOptions]>([
    [
      'an http:// authorization endpoint off this machine',
      { metadata: (m) => ({ ...m, authorization_endpoint: `${FAR}/authorize` }) },
    ],
    [
      'a file: authorization endpoint',
      { metadata: (m) => ({ ...m, authorization_endpoint: 'file:///etc/passwd' }) },
    ],
    [
      'an http:// token endpoint off this machine',
      { metadata: (m) => ({ ...m, token_endpoint: `${FAR}/token` }) },
    ],
    ['an http:// authorization server off this machine', { authorizationServer: () => `${FAR}/` }],
  ])(
    '%s: the login stops before registering, prints no authorization URL and stores nothing',
    async (_, options) => {
      await using home = await hostDir('mcp-oauth-hostile-');
      await using server = await testMcpOAuthServer(options);
      await configured(home.path, server.url);
      let browsed = false;
      const login = await loginViaCli(['remote', '--workspace', home.path], env(home.path), async () => {
        browsed = true;
      });
      expect(login.code).toBe(1);
      expect(login.stderr).toMatch(/is refused: only https:\/\/ \(or http:\/\/ on this machine's loopback\)/);
      expect(login.authorizationUrl).toBeUndefined();
      expect(browsed).toBe(false);
      expect(server.hits['/register']).toBeUndefined();
      expect(server.grants).toEqual([]);
      expect(existsSync(path.join(home.path, '.skate', 'mcp-auth', 'tokens.json'))).toBe(false);
    },
    60_000,
  );

  it('a callback with another state is refused: no token is asked for, nothing is stored', async () => {
    await using home = await hostDir('mcp-oauth-state-');
    await using server = await testMcpOAuthServer();
    await configured(home.path, server.url);
    let page: { status: number; text: string } | undefined;
    const login = await loginViaCli(['remote', '--workspace', home.path], env(home.path), async (url) => {
      // A forged callback: the authorization server's real code, another state.
      const answer = await fetch(url, { redirect: 'manual' });
      const location = new URL(answer.headers.get('location') ?? '');
      location.searchParams.set('state', 'forged-state');
      const callback = await fetch(location);
      page = { status: callback.status, text: await callback.text() };
    });
    expect(login.code).toBe(1);
    expect(page?.status).toBe(400);
    expect(login.stderr).toContain("did not carry this login's state");
    expect(server.hits['/authorize']).toBe(1);
    expect(server.grants).toEqual([]);
    expect(existsSync(path.join(home.path, '.skate', 'mcp-auth', 'tokens.json'))).toBe(false);
  }, 60_000);
});

describe.skipIf(noSandbox)('MCP OAuth: the token reaches that server alone', () => {
  it('is in no other process, argv, sandbox, model request or session log, and the store is hidden from commands', async () => {
    await using home = await hostDir('mcp-oauth-home-');
    await using ws = await hostDir('mcp-oauth-ws-');
    await using server = await testMcpOAuthServer();
    await configured(home.path, server.url);
    const login = await loginViaCli(['remote', '--workspace', ws.path], env(home.path), approveInBrowser);
    expect(login.code, login.stderr).toBe(0);
    const token = server.accessTokens[0] ?? '';
    const refreshToken = server.refreshTokens[0] ?? '';
    const storeFile = path.join(home.path, '.skate', 'mcp-auth', 'tokens.json');
    expect((await stat(storeFile)).mode & 0o777).toBe(0o600);
    expect(await readFile(storeFile, 'utf8')).toContain(token);

    const probe = [
      'touch probe-running',
      'for i in $(seq 1 50); do [ -e host-looked ] && break; sleep 0.1; done',
      `echo "== store"; ls -la ${home.path}/.skate/mcp-auth; cat ${home.path}/.skate/mcp-auth/tokens.json 2>&1`,
      'echo "== environ"; /usr/bin/cat /proc/[0-9]*/environ 2>/dev/null | /usr/bin/tr "\\0" "\\n"',
      'echo "== cmdline"; /usr/bin/cat /proc/[0-9]*/cmdline 2>/dev/null | /usr/bin/tr "\\0" " "',
      'echo "== end"',
    ].join('\n');
    await writeFile(path.join(ws.path, 'probe.sh'), probe);
    await using api = await fakeMessagesApi([
      // The server's executor first (it then runs, idle, holding the token), then the probe.
      call('o1', 'mcp__remote__echo', { text: 'hi' }),
      call('p1', 'shell', { command: '/bin/bash probe.sh' }),
      text('done'),
    ]);
    const running = runCli(
      ['-p', 'go', '--output-format', 'stream-json', '--approval', 'auto', '--workspace', ws.path],
      { env: env(home.path, api.url), timeoutMs: 90_000 },
    );
    expect(await eventually(() => existsSync(path.join(ws.path, 'probe-running')), 60_000)).toBe(true);
    const seen: string[] = [];
    for (const pid of await processDescendants(process.pid)) {
      const environ = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
      const argv = await commandLine(pid);
      seen.push(argv);
      for (const secret of [token, refreshToken]) {
        expect(environ, `environ of ${pid} (${argv})`).not.toContain(secret);
        expect(argv, `argv of ${pid}`).not.toContain(secret);
      }
    }
    // Among them: the harness, the server's executor (two executors' sandboxes) and the probe.
    expect(seen.some((argv) => argv.includes('skate.js'))).toBe(true);
    expect(seen.filter((argv) => argv.includes('bwrap')).length).toBeGreaterThanOrEqual(2);
    expect(seen.some((argv) => argv.includes('probe.sh'))).toBe(true);
    await writeFile(path.join(ws.path, 'host-looked'), '');
    const result = await running;
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: string; output?: string; isError?: boolean });
    expect(events.find((e) => e.type === 'tool_call_result' && e.id === 'o1')).toMatchObject({
      isError: false,
      output: 'oauth echo: hi',
    });
    const probed = events.find((e) => e.type === 'tool_call_result' && e.id === 'p1')?.output ?? '';
    expect(probed).toContain('== end');
    // The store's directory is empty in the sandbox; the file cannot be read there.
    expect(probed).toMatch(/== store\n[\s\S]*No such file or directory/);
    expect(server.authorizations.at(-1)).toBe(`Bearer ${token}`);
    const sessions = path.join(ws.path, '.skate', 'sessions');
    const logs = (
      await Promise.all((await readdir(sessions)).map((f) => readFile(path.join(sessions, f), 'utf8')))
    ).join('\n');
    const requests = JSON.stringify(api.requests.map((r) => r.body));
    for (const secret of [token, refreshToken]) {
      expect(probed).not.toContain(secret);
      expect(requests).not.toContain(secret);
      expect(logs).not.toContain(secret);
      expect(result.stdout).not.toContain(secret);
      expect(result.stderr).not.toContain(secret);
    }
    // The host's store is untouched.
    expect(await readFile(storeFile, 'utf8')).toContain(token);
  }, 240_000);
});
