import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { cliEnv, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

/**
 * Issue #22: an MCP server's prompts are its own text. A hostile server's prompt (a description
 * and messages full of terminal control sequences, 3,000,000 characters of text and 200,000 ESC
 * characters, which JSON writes as six bytes each) reaches the model bounded, as the user's turn,
 * and the terminal only inert: asserted on the model's recorded request, and on tmux's state (the
 * screen, its paste buffers, the pane title) with a tmux that lets panes set them.
 */
const PROMPTS_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'prompts-server.mjs');
const tmux = await hasTmux();

async function hostileHome(home: string): Promise<void> {
  await writeSkateSettings(home, {
    mcpServers: {
      h: { command: process.execPath, args: [PROMPTS_SERVER], env: { MCP_HOSTILE_PROMPTS: '1' } },
    },
  });
}

function lastUserText(body: unknown): string {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.filter((m) => m.role === 'user').at(-1)!;
  if (typeof last.content === 'string') return last.content;
  return (last.content as { type: string; text?: string }[])
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

describe('a hostile MCP prompt', () => {
  it('reaches the model bounded (skate -p), and the run goes on', async () => {
    await using home = await hostDir('mcp-hostile-prompt-home-');
    await using ws = await hostDir('mcp-hostile-prompt-ws-');
    await hostileHome(home.path);
    await using api = await fakeMessagesApi([text('noted')]);
    const env = cliEnv({ home: home.path, api: api.url });
    const result = await runCli(
      ['-p', '/mcp__h__hostile', '--output-format', 'json', '--workspace', ws.path],
      { env, timeoutMs: 90_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ is_error: false, result: 'noted' });
    const sent = lastUserText(api.requests[0]?.body);
    expect(sent).toContain('PROMPT-HOSTILE');
    // Cut, and said: at most 100,000 characters of the server's text, whatever it sent.
    expect(sent).toMatch(/\[cut: \d+ characters\]/);
    expect(sent.length).toBeLessThan(101_000);
    // The whole request stays within the executor's output bound plus the rest of the request.
    expect(JSON.stringify(api.requests[0]?.body).length).toBeLessThan(700_000);
  }, 120_000);

  it.skipIf(!tmux)(
    'shows its description inert in the terminal UI, runs it, and sets no title or clipboard',
    async () => {
      await using home = await hostDir('mcp-hostile-tui-home-');
      await hostileHome(home.path);
      await using s = await skateTerminal({
        columns: 80,
        rows: 30,
        env: { HOME: home.path },
        replies: [text('Noted the hostile prompt.'), text('Title')],
        permissive: true,
      });
      const { terminal } = s;
      await terminal.waitFor(/^ INSERT /m, 60_000);
      const title = await terminal.format('#{pane_title}');
      await terminal.type('/mcp__h__ho');
      // The description's sequences as visible stand-ins, on one row, within the width.
      let screen = await terminal.waitFor('/mcp__h__hostile [x]');
      expect(screen).toContain('Hostile ␛]0;PWNED-TITLE');
      for (const row of screen.split('\n')) expect(row.length, row).toBeLessThanOrEqual(80);
      await terminal.keys('Tab');
      await terminal.keys('Enter');
      screen = await terminal.waitFor('Noted the hostile prompt.', 90_000);
      expect(lastUserText(s.api.requests[0]?.body)).toContain('PROMPT-HOSTILE');
      expect(await terminal.buffers()).toEqual([]);
      expect(await terminal.format('#{pane_title}')).toBe(title);
      expect(await terminal.format('#{window_name}')).not.toContain('PWNED');
      await s.command('q');
      expect((await s.exited()).status).toBe(0);
    },
    180_000,
  );
});
