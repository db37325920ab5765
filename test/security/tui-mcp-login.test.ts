import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostDir } from '../support/host-dir.js';
import { testMcpOAuthServer } from '../support/mcp-oauth-server.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

const tmux = await hasTmux();

/** What a hostile authorization server puts in its error: a title, a clipboard write, a screen clear. */
const HOSTILE = '\x1b]0;PWNED-TITLE\x07\x1b]52;c;UFdORUQ=\x07\x1b[2J\x1b[HPWNED-TEXT';

/** A registration endpoint that refuses with the hostile text as its `error_description`. */
async function hostileRegistration(): Promise<{ url: string } & AsyncDisposable> {
  const server = http.createServer((_req, res) => {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'invalid_client_metadata', error_description: HOSTILE }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/register`,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(!tmux)('`:mcp login` in the terminal UI against hostile OAuth servers', () => {
  it('shows their text inert (no title, clipboard or clear reaches the terminal) and opens no URL they name that is not https or loopback', async () => {
    await using home = await hostDir('tui-mcp-login-hostile-home-');
    await using browserDir = await hostDir('tui-mcp-login-hostile-browser-');
    await using register = await hostileRegistration();
    // One whose registration answers with control sequences, one whose authorization endpoint is not a web URL.
    await using noisy = await testMcpOAuthServer({
      metadata: (metadata) => ({ ...metadata, registration_endpoint: register.url }),
    });
    await using scheme = await testMcpOAuthServer({
      metadata: (metadata) => ({ ...metadata, authorization_endpoint: 'file:///etc/passwd' }),
    });
    await mkdir(path.join(home.path, '.skate'));
    await writeFile(
      path.join(home.path, '.skate', 'settings.json'),
      JSON.stringify({
        mcpServers: { noisy: { type: 'http', url: noisy.url }, scheme: { type: 'http', url: scheme.url } },
      }),
    );
    const bin = path.join(browserDir.path, 'bin');
    const log = path.join(browserDir.path, 'opened.log');
    await mkdir(bin);
    await writeFile(
      path.join(bin, 'xdg-open'),
      `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${log}'; done\n`,
    );
    await chmod(path.join(bin, 'xdg-open'), 0o755);
    // tmux gives the pane the PATH of the process that starts its server.
    const path0 = process.env.PATH;
    process.env.PATH = `${bin}:${path0 ?? ''}`;
    await using s = await skateTerminal({
      columns: 80,
      rows: 40,
      env: { HOME: home.path, DISPLAY: ':99' },
      replies: [],
      permissive: true,
    }).finally(() => {
      process.env.PATH = path0;
    });
    const { terminal } = s;
    const raw = path.join(browserDir.path, 'pane.raw');
    await terminal.waitFor(/^ INSERT /m, 60_000);
    await terminal.pipeOutput(raw);
    const title = await terminal.format('#{pane_title}');

    await s.command('mcp login noisy');
    let screen = await terminal.waitFor(/login to the MCP server "noisy" failed/, 60_000);
    // The server's text is there, as visible stand-ins.
    expect(screen.replace(/\s+/g, '')).toContain('␛]0;PWNED-TITLE␇');
    expect(noisy.hits['/authorize']).toBeUndefined();

    await s.command('mcp login scheme');
    screen = await terminal.waitFor(/login to the MCP server "scheme" failed/, 60_000);
    expect(screen.replace(/\s+/g, ' ')).toMatch(/file:\/\/\/etc\/passwd is refused/);

    // On the host: nothing was opened, and the terminal took none of the sequences.
    expect(await readFile(log, 'utf8').catch(() => '')).toBe('');
    expect(await terminal.buffers()).toEqual([]);
    expect(await terminal.format('#{pane_title}')).toBe(title);
    expect(await terminal.format('#{window_name}')).not.toContain('PWNED');
    const bytes = await readFile(raw, 'latin1');
    expect(bytes).not.toContain('\x1b]0;PWNED');
    expect(bytes).not.toContain('\x1b]52;');
    // No token was stored for either.
    const store = await readFile(path.join(home.path, '.skate', 'mcp-auth', 'tokens.json'), 'utf8').catch(
      () => '{"entries":[]}',
    );
    expect(store).not.toContain('access_token');
    await s.command('q');
    expect((await s.exited()).status).toBe(0);
  }, 180_000);
});
