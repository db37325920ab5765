import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { textReply as text } from '../support/cli-world.js';
import { hostDir } from '../support/host-dir.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { skateTerminal } from '../support/skate-terminal.js';
import { hasTmux } from '../support/tmux-terminal.js';

const PROMPTS_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'prompts-server.mjs');
const tmux = await hasTmux();

/** The text of a request's last user message. */
function lastUserText(body: unknown): string {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.filter((m) => m.role === 'user').at(-1)!;
  if (typeof last.content === 'string') return last.content;
  return (last.content as { type: string; text?: string }[])
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

describe.skipIf(!tmux)(
  'MCP prompts as slash commands in the terminal UI (#22, tmux)',
  { timeout: 180_000 },
  () => {
    for (const columns of [80, 200]) {
      it(`at ${columns} columns: / offers the prompts with their arguments, Tab completes, Enter runs the prompt`, async () => {
        await using home = await hostDir('tui-prompts-home-');
        await writeSkateSettings(home.path, {
          mcpServers: { p: { command: process.execPath, args: [PROMPTS_SERVER] } },
        });
        await using s = await skateTerminal({
          columns,
          rows: 30,
          env: { HOME: home.path },
          replies: [text('Reviewed the file.'), text('Title')],
        });
        const { terminal } = s;
        await terminal.waitFor(/^ INSERT /m, 60_000);
        await terminal.type('/mcp__p');
        // Completion: each prompt with its arguments and description, one row each, within the width.
        let screen = await terminal.waitFor('/mcp__p__review <file> [focus]');
        expect(screen).toContain('/mcp__p__brief');
        expect(screen).toMatch(/\/mcp__p__review <file> \[focus\] +Review a file for bugs\./);
        expect(screen).toContain('Tab completes');
        for (const row of screen.split('\n')) expect(row.length, row).toBeLessThanOrEqual(columns);
        await terminal.type('__re');
        await terminal.keys('Tab');
        screen = await terminal.waitFor(/› \/mcp__p__review *\n {2}\/mcp__p__review <file>/);
        // The command typed: its arguments stay shown under it.
        expect(screen).toMatch(/^ {2}\/mcp__p__review <file> \[focus\]/m);
        await terminal.type('src/app.ts error handling');
        await terminal.waitFor('› /mcp__p__review src/app.ts error handling');
        await terminal.keys('Enter');
        screen = await terminal.waitFor('Reviewed the file.', 90_000);
        expect(screen).toContain('/mcp__p__review src/app.ts error handling');
        expect(lastUserText(s.api.requests[0]?.body)).toContain(
          'PROMPT-REVIEW: review src/app.ts focusing on error handling.',
        );
        // A missing argument: said in the conversation, and nothing sent to the model.
        await terminal.type('/mcp__p__review');
        await terminal.keys('Enter');
        screen = await terminal.waitFor('missing file');
        expect(screen).toMatch(/\/mcp__p__review <file> \[focus\]: missing file/);
        expect(s.api.requests.filter((r) => r.body?.messages).length).toBeLessThanOrEqual(2);
        await s.command('q');
        expect((await s.exited()).status).toBe(0);
      });
    }
  },
);
