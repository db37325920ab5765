import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { cliEnv, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const PROMPTS_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'prompts-server.mjs');

const startsIn = async (log: string): Promise<number> =>
  existsSync(log) ? (await readFile(log, 'utf8')).trim().split('\n').filter(Boolean).length : 0;

/** The text and image blocks of the first request's last user message. */
function userTurn(body: unknown): { text: string; images: number } {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.filter((m) => m.role === 'user').at(-1)!;
  const blocks = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  const list = blocks as { type: string; text?: string }[];
  return {
    text: list
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join('\n'),
    images: list.filter((b) => b.type === 'image').length,
  };
}

describe('MCP prompts as slash commands (skate -p)', () => {
  it('runs /mcp__server__prompt with positional arguments, from a remembered manifest, and says what is missing', async () => {
    await using home = await hostDir('mcp-prompts-home-');
    await using ws = await hostDir('mcp-prompts-ws-');
    await mkdir(path.join(ws.path, 'log'));
    const log = path.join(ws.path, 'log', 'starts');
    await writeSkateSettings(home.path, {
      mcpServers: {
        p: {
          command: process.execPath,
          args: [PROMPTS_SERVER],
          env: { MCP_START_LOG: log },
          policy: { write: ['log'] },
        },
      },
    });
    await using api = await fakeMessagesApi([text('hello'), text('reviewed'), text('briefed')]);
    const run = (prompt: string) =>
      runCli(['-p', prompt, '--output-format', 'json', '--workspace', ws.path], {
        env: cliEnv({ home: home.path, api: api.url }),
        timeoutMs: 90_000,
      });
    // First run: the server starts to list its tools and prompts (the manifest remembers both).
    const first = await run('hello');
    expect(first.code, first.stderr).toBe(0);
    expect(await startsIn(log)).toBe(1);
    // A second run knows the prompt without starting the server; running it starts it.
    const reviewed = await run('/mcp__p__review src/app.ts error handling');
    expect(reviewed.code, reviewed.stderr).toBe(0);
    expect(await startsIn(log)).toBe(2);
    const review = userTurn(api.requests[1]?.body);
    expect(review.text).toContain('PROMPT-REVIEW: review src/app.ts focusing on error handling.');
    expect(review.text).not.toContain('/mcp__p__review');
    // Text, an assistant message, an embedded text resource, an image the model takes, a note for audio.
    const briefed = await run('/mcp__p__brief');
    expect(briefed.code, briefed.stderr).toBe(0);
    const brief = userTurn(api.requests[2]?.body);
    expect(brief.text).toContain('PROMPT-BRIEF');
    expect(brief.text).toContain('(assistant) Understood.');
    expect(brief.text).toContain('EMBEDDED-NOTES: ship on Friday.');
    expect(brief.text).toMatch(/\[audio content left out\]/);
    expect(brief.images).toBe(1);
    // A missing required argument, an unknown prompt, a failing one: errors, and no model request.
    const missing = await run('/mcp__p__review');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/\/mcp__p__review <file> \[focus\]: missing file/);
    const unknown = await run('/mcp__p__nope x');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no MCP prompt \/mcp__p__nope; the prompts: .*\/mcp__p__review/);
    const broken = await run('/mcp__p__broken');
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout)).toMatchObject({ is_error: true });
    expect(broken.stdout).toMatch(/the brief is gone/);
    expect(api.requests).toHaveLength(3);
  }, 240_000);

  it('a server whose prompt listing fails still offers its tools', async () => {
    await using home = await hostDir('mcp-prompts-home-');
    await using ws = await hostDir('mcp-prompts-ws-');
    await writeSkateSettings(home.path, {
      mcpServers: {
        b: { command: process.execPath, args: [PROMPTS_SERVER], env: { MCP_PROMPTS_LIST_FAILS: '1' } },
      },
    });
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'p1', name: 'mcp__b__ping', input: {} }],
        stopReason: 'tool_use',
      },
      text('pinged'),
    ]);
    const run = (prompt: string) =>
      runCli(['-p', prompt, '--output-format', 'json', '--workspace', ws.path], {
        env: cliEnv({ home: home.path, api: api.url }),
        timeoutMs: 90_000,
      });
    const pinged = await run('ping it');
    expect(pinged.code, pinged.stderr).toBe(0);
    expect(JSON.stringify(api.requests[1]?.body)).toContain('pong');
    const none = await run('/mcp__b__review x');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no MCP prompt \/mcp__b__review \(no MCP server offers prompts\)/);
  }, 120_000);
});
