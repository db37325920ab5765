import { describe, expect, it } from 'vitest';
import {
  expandPromptCommand,
  parsePromptCommand,
  promptArguments,
} from '../../../harness/mcp/expand-prompt-command.js';
import type { McpPromptCommand } from '../../../harness/mcp/mcp-prompt-commands.js';
import { promptCommandsOf } from '../../../harness/mcp/mcp-prompt-commands.js';
import type { McpPromptResult } from '../../../shared/mcp-prompts.js';

const signal = new AbortController().signal;

function command(result: McpPromptResult | string, isError = false): McpPromptCommand {
  const [made] = promptCommandsOf(
    's',
    [
      {
        name: '-skate-prompt-review',
        description: 'Review',
        effect: 'read',
        inputSchema: {
          type: 'object',
          properties: { file: { type: 'string', description: 'the file' }, focus: { type: 'string' } },
          required: ['file'],
        },
      },
    ],
    async (tool, input) => ({
      output: typeof result === 'string' ? result : JSON.stringify({ ...result, echo: { tool, input } }),
      isError,
    }),
  );
  return made!;
}

describe('MCP prompt commands', () => {
  it('reads a command from the reserved tool: name, arguments in order, required ones', () => {
    const made = command({ messages: [] });
    expect(made.name).toBe('mcp__s__review');
    expect(made.arguments).toEqual([
      { name: 'file', description: 'the file', required: true },
      { name: 'focus', required: false },
    ]);
  });

  it('parses /mcp__… only, positional and quoted arguments, the rest joining the last', () => {
    expect(parsePromptCommand('/model x')).toBeUndefined();
    expect(parsePromptCommand('explain /mcp__s__review')).toBeUndefined();
    expect(parsePromptCommand('  /mcp__s__review a b  ')).toEqual({ name: 'mcp__s__review', rest: 'a b' });
    const made = command({ messages: [] });
    expect(promptArguments(made, '"src/my file.ts" error handling')).toEqual({
      ok: true,
      args: { file: 'src/my file.ts', focus: 'error handling' },
    });
    expect(promptArguments(made, 'a.ts')).toEqual({ ok: true, args: { file: 'a.ts' } });
    expect(promptArguments(made, '')).toEqual({
      ok: false,
      error: '/mcp__s__review <file> [focus]: missing file',
    });
  });

  it('turns the messages into the turn: text, assistant text marked, images the model takes, the others a note', async () => {
    const made = command({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'one' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'two' }] },
        { role: 'user', content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] },
        { role: 'user', content: [{ type: 'image', mimeType: 'image/tiff', data: 'AAAA' }] },
        { role: 'user', content: [{ type: 'note', text: '[audio content left out]' }] },
      ],
    });
    const expanded = await expandPromptCommand([made], '/mcp__s__review a.ts', signal);
    expect(expanded).toEqual({
      kind: 'prompt',
      text: 'one\n\n(assistant) two\n\n[image image/tiff left out: the model takes PNG, JPEG, GIF and WebP up to 5 MB]\n\n[audio content left out]',
      images: [{ mediaType: 'image/png', data: 'AAAA' }],
    });
  });

  it('says what went wrong: no such prompt, a failing server, an unreadable answer; other text is left alone', async () => {
    expect(await expandPromptCommand([], 'hello', signal)).toEqual({ kind: 'text' });
    expect(await expandPromptCommand([command({ messages: [] })], '/mcp__s__nope', signal)).toMatchObject({
      kind: 'error',
      cause: 'usage',
      error: 'no MCP prompt /mcp__s__nope; the prompts: /mcp__s__review',
    });
    expect(await expandPromptCommand([command('boom', true)], '/mcp__s__review a', signal)).toMatchObject({
      kind: 'error',
      cause: 'server',
      error: '/mcp__s__review: boom',
    });
    expect(await expandPromptCommand([command('{"messages": 3')], '/mcp__s__review a', signal)).toMatchObject(
      {
        kind: 'error',
        cause: 'server',
      },
    );
  });
});
