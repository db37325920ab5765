import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import type { FakeReply } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const tmux = await hasTmux();
const text = (t: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text: t }] });

function lastUserText(body: unknown): string {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.filter((m) => m.role === 'user').at(-1)!;
  if (typeof last.content === 'string') return last.content;
  return (last.content as { type: string; text?: string }[]).map((b) => b.text ?? '').join('\n');
}

describe.skipIf(!tmux)(
  '@server:uri resource mentions in the terminal UI (#22, tmux)',
  { timeout: 180_000 },
  () => {
    for (const columns of [80, 200]) {
      it(`at ${columns} columns: a mention's resource is read through its server and attached; a failed one sends nothing`, async () => {
        await using home = await hostDir('tui-mentions-home-');
        await mkdir(path.join(home.path, '.skate'));
        await writeFile(
          path.join(home.path, '.skate', 'settings.json'),
          JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [TEST_SERVER] } } }),
        );
        await using s = await skateTerminal({
          columns,
          rows: 30,
          env: { HOME: home.path },
          replies: [text('Read the readme.'), text('Title')],
        });
        const { terminal } = s;
        await terminal.waitFor(/^ INSERT /m, 60_000);
        await s.send('sum up @t:test://docs/readme');
        await terminal.waitFor('Read the readme.', 90_000);
        const sent = lastUserText(s.api.requests.find((r) => r.body?.messages)?.body);
        expect(sent).toContain('sum up @t:test://docs/readme');
        expect(sent).toContain('<mcp-resource server="t" uri="test://docs/readme">');
        expect(sent).toContain('The readme of the test service.');

        const before = s.api.requests.filter((r) => r.body?.messages).length;
        await s.send('and @t:test://docs/nothing-here');
        const screen = await terminal.waitFor(/could not be read/, 60_000);
        expect(screen.replace(/\s+/g, ' ')).toContain('@t:test://docs/nothing-here could not be read');
        expect(s.api.requests.filter((r) => r.body?.messages).length).toBe(before);
        await s.command('q');
        expect((await s.exited()).status).toBe(0);
      });
    }
  },
);
