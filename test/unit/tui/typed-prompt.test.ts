import { describe, expect, it } from 'vitest';
import type { McpResourceServer } from '../../../harness/mcp/mcp-pool.js';
import type { McpPromptCommand } from '../../../harness/mcp/mcp-prompt-commands.js';
import { expandTypedPrompt } from '../../../harness/tui/typed-prompt.js';

const reads: string[] = [];
const docs: McpResourceServer = {
  server: 'docs',
  list: async () => ({ output: '', isError: false }),
  read: async (uri) => {
    reads.push(uri);
    return uri.endsWith('missing')
      ? { output: 'no such resource', isError: true }
      : { output: `CONTENT of ${uri}`, isError: false };
  },
};
// The server's prompt names a resource: its text is the server's, never read as a mention of the person's.
const review: McpPromptCommand = {
  name: 'mcp__docs__review',
  server: 'docs',
  description: 'review',
  arguments: [],
  get: async () => ({
    output: JSON.stringify({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'see @docs:test://x' }] }],
    }),
    isError: false,
  }),
};
const backend = { promptCommands: () => [review], resourceServers: () => [docs] };

describe('expandTypedPrompt', () => {
  it('sends plain text as typed, a prompt command as the server’s text unread, mentions read and attached', async () => {
    const signal = new AbortController().signal;
    expect(await expandTypedPrompt('hello', {}, signal)).toEqual({
      kind: 'send',
      text: 'hello',
      options: {},
    });
    reads.length = 0;
    expect(await expandTypedPrompt('/mcp__docs__review', backend, signal)).toEqual({
      kind: 'send',
      text: 'see @docs:test://x',
      options: {},
    });
    expect(reads).toEqual([]);
    const mentioned = await expandTypedPrompt('read @docs:test://readme', backend, signal);
    expect(mentioned.kind === 'send' && mentioned.text).toContain('CONTENT of test://readme');
    expect(reads).toEqual(['test://readme']);
  });

  it('turns a bad command or a failed read into an error to show, with nothing to send', async () => {
    const signal = new AbortController().signal;
    expect(await expandTypedPrompt('/mcp__docs__review extra', backend, signal)).toMatchObject({
      kind: 'error',
      error: expect.stringContaining('takes no arguments'),
    });
    expect(await expandTypedPrompt('read @docs:test://missing', backend, signal)).toMatchObject({
      kind: 'error',
    });
  });
});
