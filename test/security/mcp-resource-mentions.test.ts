import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import type { FakeReply } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * An `@server:uri` mention in the terminal UI is read through the server's executor, never by the
 * harness: a mention naming ~/.ssh/id_rsa through a server's any-file template reads nothing of it,
 * while the same template reads a workspace file (the control).
 */
const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const SSH_KEY = 'MENTION-SECRET-KEY-0f6b1e';
const tmux = await hasTmux();
const text = (t: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text: t }] });

describe.skipIf(!tmux)('@server:uri mentions', () => {
  it('a mention naming ~/.ssh/id_rsa reads nothing of it: no request holds the key, the screen neither', async () => {
    await using home = await hostDir('mention-sec-home-');
    await mkdir(path.join(home.path, '.ssh'));
    const key = path.join(home.path, '.ssh', 'id_rsa');
    await writeFile(key, SSH_KEY);
    await mkdir(path.join(home.path, '.skate'));
    await writeFile(
      path.join(home.path, '.skate', 'settings.json'),
      JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [TEST_SERVER] } } }),
    );
    await using s = await skateTerminal({
      columns: 200,
      rows: 30,
      env: { HOME: home.path },
      files: { 'visible.txt': 'VISIBLE-WORKSPACE-TEXT' },
      replies: [text('Read it.'), text('Read that too.'), text('Title')],
    });
    const { terminal } = s;
    await terminal.waitFor(/^ INSERT /m, 60_000);
    const uri = (file: string) => `test://file?path=${encodeURIComponent(file)}`;
    await s.send(`look @t:${uri(path.join(s.workspace, 'visible.txt'))}`);
    await terminal.waitFor('Read it.', 90_000);
    await s.send(`and @t:${uri(key)}`);
    await terminal.waitFor(/Read that too\.|could not be read/, 60_000);
    const requests = JSON.stringify(s.api.requests.map((r) => r.body));
    // The control: the path reached the server, which read a workspace file.
    expect(requests).toContain('VISIBLE-WORKSPACE-TEXT');
    expect(requests).not.toContain(SSH_KEY);
    expect(await terminal.history()).not.toContain(SSH_KEY);
    expect(await readFile(key, 'utf8')).toBe(SSH_KEY);
    await s.command('q');
    expect((await s.exited()).status).toBe(0);
  }, 180_000);
});
