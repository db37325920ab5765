import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { MCP_UNAUTHORIZED_MARK } from '../../shared/mcp-oauth.js';
import type { McpBootServer } from '../../shared/mcp-servers.js';
import type { ToolOutcome } from '../define-tool.js';
import { createMcpTransport, type McpTransportOptions } from './mcp-transport.js';

/** One tool as the server lists it, with what Skate needs of its annotations. */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** `readOnlyHint`: calls need no approval. */
  readOnly: boolean;
}

/** The MCP server this executor speaks to with the SDK's client: its child over stdio, or a remote one. */
export interface McpChild {
  /** Starts the server when it is not running (first use, or after it stopped) and lists its tools. */
  tools(): Promise<McpToolInfo[]>;
  call(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<ToolOutcome>;
  /** Whether the server declares resources (started if need be). */
  hasResources(): Promise<boolean>;
  /** Its resources, one line each; or one resource's contents (text bounded, binary summarised). */
  resources(uri: string | undefined, signal: AbortSignal, timeoutMs: number): Promise<ToolOutcome>;
  close(): Promise<void>;
}

/** Characters of one resource's text passed on; the rest is cut, and said. */
const MAX_RESOURCE_CHARS = 100_000;

export type McpChildOptions = McpTransportOptions;

interface Connection {
  client: Client;
  transport: Transport;
  tools: McpToolInfo[];
  resources: boolean;
}

/** Lines of the server's stderr kept to explain a failed start. */
const STDERR_TAIL_LINES = 8;

export function createMcpChild(server: McpBootServer, options: McpChildOptions): McpChild {
  let connection: Promise<Connection> | undefined;
  const stderrTail: string[] = [];
  const label = `MCP server "${server.name}"`;
  // Set when the server answers 401: the harness then refreshes its login or says `skate mcp login`.
  let unauthorized = false;
  const transportOptions = { ...options, onUnauthorized: () => (unauthorized = true) };

  const connect = async (): Promise<Connection> => {
    const [{ Client }, { transport, stderr }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      createMcpTransport(server, transportOptions),
    ]);
    stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        stderrTail.push(line.slice(0, 300));
        if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
      }
    });
    const client = new Client({ name: 'skate', version: '0.1.0' });
    unauthorized = false;
    const started = (async () => {
      await client.connect(transport);
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        for (const tool of page.tools) {
          tools.push({
            name: tool.name,
            description: tool.description ?? tool.title ?? '',
            inputSchema: tool.inputSchema as Record<string, unknown>,
            readOnly: tool.annotations?.readOnlyHint === true,
          });
        }
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    })();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${label} did not start within ${server.startTimeoutMs} ms`)),
        server.startTimeoutMs,
      );
    });
    try {
      const tools = await Promise.race([started, timedOut]);
      // Once it ends (killed, crashed), the next call starts it again.
      // The client's, not the transport's: that one is the client's own, which fails the calls running.
      client.onclose = () => {
        connection = undefined;
      };
      return { client, transport, tools, resources: Boolean(client.getServerCapabilities()?.resources) };
    } catch (error) {
      await transport.close().catch(() => undefined);
      const tail = stderrTail.length > 0 ? `; its stderr ended:\n${stderrTail.join('\n')}` : '';
      const refused = unauthorized ? ` ${MCP_UNAUTHORIZED_MARK}` : '';
      throw new Error(`${label} could not start: ${(error as Error).message}${refused}${tail}`);
    } finally {
      clearTimeout(timer);
    }
  };

  const connected = (): Promise<Connection> => {
    connection ??= connect().catch((error: unknown) => {
      connection = undefined;
      throw error;
    });
    return connection;
  };

  return {
    tools: async () => (await connected()).tools,
    async call(name, args, signal, timeoutMs) {
      const { client } = await connected();
      let result: Awaited<ReturnType<Client['callTool']>>;
      unauthorized = false;
      try {
        result = await client.callTool({ name, arguments: args }, undefined, {
          signal,
          timeout: timeoutMs,
          resetTimeoutOnProgress: true,
        });
      } catch (error) {
        if (signal.aborted) return { output: `${name} was cancelled`, isError: true, code: 'cancelled' };
        return {
          output: `${label} failed during the call of ${name}: ${(error as Error).message}`,
          isError: true,
          code: unauthorized ? 'unauthorized' : 'failed',
        };
      }
      const output = contentText(result);
      return result.isError === true ? { output, isError: true, code: 'failed' } : { output };
    },
    hasResources: async () => (await connected()).resources,
    async resources(uri, signal, timeoutMs) {
      const { client } = await connected();
      const options = { signal, timeout: timeoutMs };
      try {
        if (uri === undefined) {
          const lines: string[] = [];
          let cursor: string | undefined;
          do {
            const page = await client.listResources(cursor ? { cursor } : undefined, options);
            for (const r of page.resources)
              lines.push(
                `${r.uri}\t${r.name}${r.mimeType ? ` (${r.mimeType})` : ''}${r.description ? `: ${r.description.slice(0, 300)}` : ''}`,
              );
            cursor = page.nextCursor;
          } while (cursor && lines.length < 1000);
          return { output: lines.length > 0 ? lines.join('\n') : `${label} lists no resources` };
        }
        const read = await client.readResource({ uri }, options);
        const parts = read.contents.map((content) =>
          'text' in content && typeof content.text === 'string'
            ? content.text.length > MAX_RESOURCE_CHARS
              ? `${content.text.slice(0, MAX_RESOURCE_CHARS)}\n[cut: ${content.text.length} characters in all]`
              : content.text
            : `[binary ${content.mimeType ?? 'resource'} ${content.uri}, ${'blob' in content ? String(content.blob).length : 0} base64 characters]`,
        );
        return { output: parts.join('\n') };
      } catch (error) {
        if (signal.aborted) return { output: 'cancelled', isError: true, code: 'cancelled' };
        return { output: `${label}: ${(error as Error).message}`, isError: true, code: 'failed' };
      }
    },
    async close() {
      const open = connection;
      connection = undefined;
      await open?.then((c) => c.transport.close()).catch(() => undefined);
    },
  };
}

/** A result's content as text for the model: text as is, other kinds named. */
function contentText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
  const parts = content.map((block) => {
    switch (block.type) {
      case 'text':
        return String(block.text ?? '');
      case 'image':
      case 'audio':
        return `[${block.type} ${String(block.mimeType ?? '')}, ${String(block.data ?? '').length} base64 characters]`;
      case 'resource': {
        const resource = (block.resource ?? {}) as Record<string, unknown>;
        return typeof resource.text === 'string' ? resource.text : `[resource ${String(resource.uri ?? '')}]`;
      }
      case 'resource_link':
        return `[resource ${String(block.uri ?? '')}${block.name ? ` (${String(block.name)})` : ''}]`;
      default:
        return `[${String(block.type)} content]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}
