import { describe, expect, it } from 'vitest';
import {
  expandResourceMentions,
  MAX_RESOURCE_MENTIONS,
  resourceMentions,
} from '../../../harness/mcp/expand-resource-mentions.js';
import type { McpResourceServer } from '../../../harness/mcp/mcp-pool.js';

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

describe('@server:uri resource mentions', () => {
  it('finds mentions of servers with resources only, at the start or after a space, once each', () => {
    expect(
      resourceMentions('see @docs:test://a and @docs:test://a, mail me@docs:x @other:test://b', ['docs']),
    ).toEqual([
      { server: 'docs', uri: 'test://a' },
      { server: 'docs', uri: 'test://a,' },
    ]);
    expect(resourceMentions('@docs:file:///etc/hosts', ['docs'])).toEqual([
      { server: 'docs', uri: 'file:///etc/hosts' },
    ]);
  });

  it('attaches each read after the prompt; a failed read is an error and nothing is sent; too many are refused', async () => {
    const signal = new AbortController().signal;
    expect(await expandResourceMentions('no mention', [docs], signal)).toEqual({
      kind: 'text',
      text: 'no mention',
    });
    const expanded = await expandResourceMentions('read @docs:test://readme please', [docs], signal);
    expect(expanded).toEqual({
      kind: 'text',
      text: 'read @docs:test://readme please\n\n<mcp-resource server="docs" uri="test://readme">\nCONTENT of test://readme\n</mcp-resource>',
    });
    expect(await expandResourceMentions('@docs:test://missing', [docs], signal)).toEqual({
      kind: 'error',
      error: '@docs:test://missing could not be read: no such resource',
    });
    reads.length = 0;
    const many = Array.from({ length: MAX_RESOURCE_MENTIONS + 1 }, (_, i) => `@docs:test://${i}`).join(' ');
    expect((await expandResourceMentions(many, [docs], signal)).kind).toBe('error');
    expect(reads).toEqual([]);
  });
});
