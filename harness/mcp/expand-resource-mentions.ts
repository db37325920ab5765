import type { McpResourceServer } from './mcp-pool.js';

/** Mentions read from one prompt at most: each is a read through a server's executor. */
export const MAX_RESOURCE_MENTIONS = 10;

/** A prompt with its `@server:uri` mentions' contents attached, or why it was not sent. */
export type ExpandedMentions = { kind: 'text'; text: string } | { kind: 'error'; error: string };

/**
 * `@server:uri` in a prompt, as Claude Code has them: a mention of a resource of an MCP server of
 * this session that declares resources. Preceded by the start or a space; the URI runs to the next
 * space. A `@name:` that is no such server is text, as typed.
 */
export function resourceMentions(
  text: string,
  servers: readonly string[],
): { server: string; uri: string }[] {
  const found: { server: string; uri: string }[] = [];
  for (const match of text.matchAll(/(?:^|\s)@([\w.-]+):(\S+)/g)) {
    const [, server, uri] = match;
    if (server && uri && servers.includes(server) && !found.some((m) => m.server === server && m.uri === uri))
      found.push({ server, uri });
  }
  return found;
}

/**
 * The prompt as typed, then each mentioned resource read through its server's executor (the path
 * of `mcp_read_resource`: its confinement, its bounds) and attached after it. A failed read is an
 * error for the person, and nothing is sent: they asked for that content.
 */
export async function expandResourceMentions(
  text: string,
  servers: readonly McpResourceServer[],
  signal: AbortSignal,
): Promise<ExpandedMentions> {
  const mentions = resourceMentions(
    text,
    servers.map((s) => s.server),
  );
  if (mentions.length === 0) return { kind: 'text', text };
  if (mentions.length > MAX_RESOURCE_MENTIONS)
    return {
      kind: 'error',
      error: `${mentions.length} resources mentioned; at most ${MAX_RESOURCE_MENTIONS} are read for one prompt`,
    };
  const attached: string[] = [];
  for (const { server, uri } of mentions) {
    const reader = servers.find((s) => s.server === server)!;
    const result = await reader.read(uri, signal);
    if (signal.aborted) return { kind: 'error', error: 'the prompt was interrupted' };
    if (result.isError)
      return { kind: 'error', error: `@${server}:${uri} could not be read: ${result.output}` };
    attached.push(
      `<mcp-resource server="${server}" uri="${uri.replaceAll('"', '%22')}">\n${result.output}\n</mcp-resource>`,
    );
  }
  return { kind: 'text', text: `${text}\n\n${attached.join('\n\n')}` };
}
