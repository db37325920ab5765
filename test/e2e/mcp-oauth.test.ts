import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolCall as call, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { loginEnv as env, loginViaCli } from '../support/mcp-login.js';
import { approveInBrowser, EXPIRE_AFTER, testMcpOAuthServer } from '../support/mcp-oauth-server.js';
import { runCli } from '../support/run-cli.js';
import { sessionLogs } from '../support/session-logs.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { toolCallResults } from '../support/stream-json.js';

interface StoreFile {
  entries: { url: string; expiresAt?: number; tokens?: { access_token: string } }[];
}

describe('a remote MCP server behind OAuth (skate mcp login)', () => {
  it('logs in through the real CLI (discovery, registration, PKCE, loopback callback), is called from skate -p with its token, refreshes an expired token before the start and a refused one once, and says skate mcp login when revoked', async () => {
    await using home = await hostDir('mcp-oauth-home-');
    await using ws = await hostDir('mcp-oauth-ws-');
    await using server = await testMcpOAuthServer();
    await writeSkateSettings(home.path, { mcpServers: { remote: { type: 'http', url: server.url } } });
    const storeFile = path.join(home.path, '.skate', 'mcp-auth', 'tokens.json');
    const store = async (): Promise<StoreFile> => JSON.parse(await readFile(storeFile, 'utf8')) as StoreFile;
    const list = async (): Promise<string> => {
      const listed = await runCli(['mcp', 'list', '--workspace', ws.path], { env: env(home.path) });
      expect(listed.code, listed.stderr).toBe(0);
      return listed.stdout;
    };

    const run = async (replies: FakeReply[]) => {
      await using api = await fakeMessagesApi(replies);
      const result = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
        env: env(home.path, api.url),
        timeoutMs: 90_000,
      });
      expect(result.code, result.stderr).toBe(0);
      return { result, requests: JSON.stringify(api.requests.map((r) => r.body)) };
    };

    // Before any login: the server answers 401; the run says how to log in, and starts no login itself.
    const before = await run([call('o0', 'mcp__remote__echo', { text: 'no' }), text('done')]);
    // (Its tools are not known: it could not start to list them, and the note says why.)
    expect(before.result.stderr).toMatch(
      /"remote" offers no tools this run: .*HTTP 401[\s\S]*skate mcp login remote/,
    );
    expect(toolCallResults(before.result.stdout)[0]).toMatchObject({ isError: true });
    expect(server.hits['/register']).toBeUndefined();
    expect(await list()).toContain('login: needs login: skate mcp login remote');

    // Login: the browser is this test, approving at once and following the redirect to the callback.
    let page: { status: number; text: string } | undefined;
    const login = await loginViaCli(['remote', '--workspace', ws.path], env(home.path), async (url) => {
      page = await approveInBrowser(url);
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.authorizationUrl).toMatch(new RegExp(`^${server.base}/authorize\\?`));
    const authorizationUrl = new URL(login.authorizationUrl ?? '');
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('redirect_uri')).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
    );
    expect(authorizationUrl.searchParams.get('resource')).toBe(server.url);
    expect(page).toEqual({ status: 200, text: expect.stringContaining('authorized') });
    expect(login.stderr).toContain('"remote" is authenticated');
    expect(server.hits['/register']).toBe(1);
    expect(server.grants).toEqual(['authorization_code']);
    // The tokens: 0600 in a 0700 directory, never printed.
    expect((await stat(storeFile)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(storeFile))).mode & 0o777).toBe(0o700);
    const [first] = server.accessTokens;
    expect((await store()).entries[0]?.tokens?.access_token).toBe(first);
    expect(login.stderr).not.toContain(first);
    expect(await list()).toContain('login: authenticated');

    // A call with the token: it reached the server alone, never the model, the output or the log.
    const used = await run([call('o1', 'mcp__remote__echo', { text: 'hi' }), text('done')]);
    expect(toolCallResults(used.result.stdout)[0]).toMatchObject({
      id: 'o1',
      isError: false,
      output: 'oauth echo: hi',
    });
    expect(server.authorizations.at(-1)).toBe(`Bearer ${first}`);
    for (const where of [used.requests, used.result.stdout, used.result.stderr, await sessionLogs(ws.path)])
      expect(where).not.toContain(first);

    // Expired (as the store says): refreshed in the harness before the server's executor starts.
    const saved = await store();
    for (const entry of saved.entries) entry.expiresAt = Date.now() - 1000;
    await writeFile(storeFile, JSON.stringify(saved));
    expect(await list()).toContain('login: expired (refreshed at its next start)');
    server.expireAccessTokens();
    const refreshed = await run([call('o2', 'mcp__remote__echo', { text: 'again' }), text('done')]);
    expect(toolCallResults(refreshed.result.stdout)[0]).toMatchObject({
      isError: false,
      output: 'oauth echo: again',
    });
    expect(server.grants).toEqual(['authorization_code', 'refresh_token']);
    const second = server.accessTokens[1] ?? '';
    expect(server.authorizations.at(-1)).toBe(`Bearer ${second}`);
    expect((await store()).entries[0]?.tokens?.access_token).toBe(second);

    // Refused at the start (the server expired it early): one refresh, then the start again.
    server.expireAccessTokens();
    const retried = await run([call('o3', 'mcp__remote__echo', { text: 'retry' }), text('done')]);
    expect(toolCallResults(retried.result.stdout)[0]).toMatchObject({
      isError: false,
      output: 'oauth echo: retry',
    });
    expect(server.grants).toEqual(['authorization_code', 'refresh_token', 'refresh_token']);
    expect(server.authorizations.at(-1)).toBe(`Bearer ${server.accessTokens[2]}`);

    // Refused mid-session, by the server's executor already running: one refresh, a new executor, the call again.
    const midway = await run([
      call('o4', 'mcp__remote__echo', { text: EXPIRE_AFTER }),
      call('o5', 'mcp__remote__echo', { text: 'midway' }),
      text('done'),
    ]);
    expect(toolCallResults(midway.result.stdout).map((r) => [r.id, r.isError, r.output])).toEqual([
      ['o4', false, `oauth echo: ${EXPIRE_AFTER}`],
      ['o5', false, 'oauth echo: midway'],
    ]);
    expect(server.grants.filter((g) => g === 'refresh_token')).toHaveLength(3);
    expect(server.authorizations.at(-1)).toBe(`Bearer ${server.accessTokens[3]}`);

    // Revoked: the refresh fails, and the model reads what to do.
    server.revokeAll();
    const revoked = await run([call('o6', 'mcp__remote__echo', { text: 'no' }), text('done')]);
    const [refused] = toolCallResults(revoked.result.stdout);
    expect(refused?.isError).toBe(true);
    expect(refused?.output).toContain('skate mcp login remote');
    expect(server.calls.map((c) => (c.args as { text: string }).text)).toEqual([
      'hi',
      'again',
      'retry',
      EXPIRE_AFTER,
      'midway',
    ]);
    expect(await list()).toContain('login: needs login: skate mcp login remote');
    // A run never starts a login flow: no new registration, no authorization asked.
    expect(server.hits['/register']).toBe(1);
    expect(server.hits['/authorize']).toBe(1);

    // Logout forgets it.
    const logout = await runCli(['mcp', 'logout', 'remote', '--workspace', ws.path], { env: env(home.path) });
    expect(logout.code, logout.stderr).toBe(0);
    expect((await store()).entries).toEqual([]);
  }, 300_000);
});
