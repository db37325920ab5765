import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeReply } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { approveInBrowser, testMcpOAuthServer } from '../support/mcp-oauth-server.js';
import { eventually } from '../support/processes.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

const tmux = await hasTmux();
const text = (t: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text: t }] });
const call = (id: string, name: string, input: Record<string, unknown>): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'tool_use', id, name, input }],
  stopReason: 'tool_use',
});

interface StoreFile {
  entries: { url: string; tokens?: { access_token: string } }[];
}

/**
 * A browser as the desktop has one: `xdg-open` on the PATH (with a DISPLAY set), which writes each
 * argument it is given on a line of `log` (the host sees exactly what Skate asked it to open).
 */
async function fakeBrowser(dir: string): Promise<{ bin: string; log: string }> {
  const bin = path.join(dir, 'bin');
  const log = path.join(dir, 'opened.log');
  await mkdir(bin);
  const script = path.join(bin, 'xdg-open');
  await writeFile(script, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${log}'; done\n`);
  await chmod(script, 0o755);
  return { bin, log };
}

describe.skipIf(!tmux)('`:mcp login` in the terminal UI (#22, tmux)', { timeout: 240_000 }, () => {
  for (const columns of [80, 200]) {
    it(`at ${columns} columns: :mcp shows the server, :mcp login shows and opens the URL, the server runs with its token at once, :mcp logout forgets it`, async () => {
      await using home = await hostDir('tui-mcp-login-home-');
      await using browserDir = await hostDir('tui-mcp-login-browser-');
      await using server = await testMcpOAuthServer();
      await mkdir(path.join(home.path, '.skate'));
      await writeFile(
        path.join(home.path, '.skate', 'settings.json'),
        JSON.stringify({ mcpServers: { remote: { type: 'http', url: server.url } } }),
      );
      const browser = await fakeBrowser(browserDir.path);
      const storeFile = path.join(home.path, '.skate', 'mcp-auth', 'tokens.json');
      // tmux gives the pane the PATH of the process that starts its server (a `-e PATH=` is not kept).
      const path0 = process.env.PATH;
      process.env.PATH = `${browser.bin}:${path0 ?? ''}`;
      await using s = await skateTerminal({
        columns,
        rows: 40,
        env: { HOME: home.path, DISPLAY: ':99' },
        replies: [
          call('o1', 'mcp__remote__echo', { text: 'after login' }),
          text('Echoed it.'),
          text('Title'),
        ],
      }).finally(() => {
        process.env.PATH = path0;
      });
      const { terminal } = s;
      await terminal.waitFor(/^ INSERT /m, 60_000);

      // Before the login: the server refused Skate (HTTP 401) at its start; :mcp says so and how to log in.
      await s.command('mcp');
      let screen = await terminal.waitFor('MCP servers');
      expect(screen).toMatch(/remote: failed at/);
      expect(screen).toContain('401');
      expect(screen).toContain('login: needs login (:mcp login remote)');
      for (const row of screen.split('\n')) expect(row.length, row).toBeLessThanOrEqual(columns);
      await terminal.keys('q');
      await terminal.waitFor(/^ NORMAL /m);
      expect(server.hits['/register']).toBeUndefined();

      await s.command('mcp login remote');
      screen = await terminal.waitFor('open this URL in a browser');
      // The URL goes to the browser as one argument, and is shown in the conversation.
      const readOpened = async (): Promise<string> =>
        (await readFile(browser.log, 'utf8').catch(() => '')).trim();
      expect(
        await eventually(async () => (await readOpened()) !== '', 30_000),
        'xdg-open was never started',
      ).toBe(true);
      const url = await readOpened();
      expect(url.split('\n')).toHaveLength(1);
      expect(url).toMatch(new RegExp(`^${server.base}/authorize\\?`));
      expect(screen).toMatch(/\(opened\s+in\s+your\s+browser\)/);
      expect(screen).toContain(`${server.base}/authorize?`);
      // The whole URL is on the screen, row after row (the conversation wraps it at the width).
      const shown = screen
        .split('\n')
        .map((row) => row.trim())
        .join('');
      expect(shown).toContain(url);

      // The person approves in the browser: the callback reaches Skate's loopback listener.
      const page = await approveInBrowser(url);
      expect(page).toEqual({ status: 200, text: expect.stringContaining('authorized') });
      screen = await terminal.waitFor(/is authenticated and running again with 1 tools/, 60_000);
      expect(screen.replace(/\s+/g, ' ')).toContain('mcp__remote__echo');
      // Stored where `skate mcp login` stores it.
      const stored = JSON.parse(await readFile(storeFile, 'utf8')) as StoreFile;
      const token = server.accessTokens[0];
      expect(token).toBeDefined();
      expect(stored.entries).toEqual([
        expect.objectContaining({
          url: server.url,
          tokens: expect.objectContaining({ access_token: token }),
        }),
      ]);

      // Without restarting Skate: the next request offers its tool, the call reaches the server with the token.
      await s.send('echo something');
      screen = await terminal.waitFor('Echoed it.', 90_000);
      expect(screen).toMatch(/remote · echo/);
      const first = s.api.requests.find((r) => r.body?.messages)?.body as { tools: { name: string }[] };
      expect(first.tools.map((t) => t.name)).toContain('mcp__remote__echo');
      expect(server.calls).toEqual([{ name: 'echo', args: { text: 'after login' } }]);
      expect(server.authorizations.at(-1)).toBe(`Bearer ${token}`);

      await s.command('mcp');
      screen = await terminal.waitFor('login: authenticated');
      expect(screen).toMatch(/remote: running, 1 tools/);
      await terminal.keys('q');
      await terminal.waitFor(/^ NORMAL /m);

      await s.command('mcp logout remote');
      await terminal.waitFor('logged out, its tokens are forgotten');
      expect((JSON.parse(await readFile(storeFile, 'utf8')) as StoreFile).entries).toEqual([]);

      await s.command('q');
      expect((await s.exited()).status).toBe(0);
    });
  }
});
