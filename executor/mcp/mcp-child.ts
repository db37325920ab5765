import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { MCP_UNAUTHORIZED_MARK } from '../../shared/mcp-oauth.js';
import type { McpBootServer } from '../../shared/mcp-servers.js';
import type { ToolOutcome } from '../define-tool.js';
import { leanCallToolResultSchema } from './call-tool-result.js';
import { getPromptOutcome, listPromptInfos, type McpPromptInfo } from './mcp-prompts.js';
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
    onProgress?: (line: string) => void,
  ): Promise<ToolOutcome>;
  /** Called with the new listing each time the running server announces `notifications/tools/list_changed`. */
  onToolsChanged(listener: (tools: McpToolInfo[]) => void): void;
  /** Whether the server declares resources (started if need be). */
  hasResources(): Promise<boolean>;
  /** Its resources, one line each; or one resource's contents (text bounded, binary summarised). */
  resources(uri: string | undefined, signal: AbortSignal, timeoutMs: number): Promise<ToolOutcome>;
  /** The prompts it declares (none without the `prompts` capability), listed when it started. */
  prompts(): Promise<McpPromptInfo[]>;
  /** One prompt's messages as JSON (`McpPromptResult`), within `limitBytes`. */
  prompt(
    name: string,
    args: Record<string, string>,
    signal: AbortSignal,
    timeoutMs: number,
    limitBytes: number,
  ): Promise<ToolOutcome>;
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
  prompts: McpPromptInfo[];
}

/** Lines of the server's stderr kept to explain a failed start. */
const STDERR_TAIL_LINES = 8;

export function createMcpChild(server: McpBootServer, options: McpChildOptions): McpChild {
  let connection: Promise<Connection> | undefined;
  const stderrTail: string[] = [];
  const changeListeners: ((tools: McpToolInfo[]) => void)[] = [];
  /** The listing that follows the server's last `tools/list_changed`, while it runs. */
  let refreshing: Promise<void> | undefined;
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
    // No client capabilities: Skate answers no sampling, elicitation or roots request (the SDK's
    // client refuses them with "method not found"), so a server that checks offers no tool needing them.
    let current: Connection | undefined;
    const client = new Client(
      { name: 'skate', version: '0.1.0' },
      {
        capabilities: {},
        listChanged: {
          tools: {
            autoRefresh: false,
            // At once: a server announces a change before the result of the call that made it,
            // and that call's result waits for the new listing (see `call`).
            debounceMs: 0,
            onChanged: () => {
              refreshing = listTools(client, label).then(
                (tools) => {
                  if (!current || current.client !== client) return;
                  current.tools = tools;
                  for (const listener of changeListeners) listener(tools);
                },
                () => undefined,
              );
            },
          },
        },
      },
    );
    unauthorized = false;
    const started = (async () => {
      await client.connect(transport);
      // A server with prompts or resources only has no tools to list (it answers "method not found").
      const tools = client.getServerCapabilities()?.tools !== undefined ? await listTools(client, label) : [];
      // Prompts are listed with the tools, so that the manifest remembers both.
      // A server whose listing fails still offers its tools (said on stderr).
      const prompts = client.getServerCapabilities()?.prompts
        ? await listPromptInfos(client).catch((error: Error) => {
            process.stderr.write(
              `skate executor: ${label} lists no prompts: ${error.message.slice(0, 300)}\n`,
            );
            return [];
          })
        : [];
      return { tools, prompts };
    })();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${label} did not start within ${server.startTimeoutMs} ms`)),
        server.startTimeoutMs,
      );
    });
    try {
      const { tools, prompts } = await Promise.race([started, timedOut]);
      // Once it ends (killed, crashed), the next call starts it again.
      // The client's, not the transport's: that one is the client's own, which fails the calls running.
      client.onclose = () => {
        connection = undefined;
      };
      current = {
        client,
        transport,
        tools,
        resources: Boolean(client.getServerCapabilities()?.resources),
        prompts,
      };
      return current;
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

  /**
   * A change the server announced during a call is listed, and said to the harness, before the
   * call's result goes back: the model's next request then offers the new tools.
   */
  const changesSettled = async (): Promise<void> => {
    // The SDK handles a notification a microtask after reading it, so one sent before the result
    // has set `refreshing` by now: a call with no change waits for nothing.
    const pending = refreshing;
    if (!pending) return;
    await pending;
    if (refreshing === pending) refreshing = undefined;
    // The announcement's frame leaves before the result's.
    await new Promise((resolve) => setImmediate(resolve));
  };

  return {
    tools: async () => (await connected()).tools,
    onToolsChanged(listener) {
      changeListeners.push(listener);
    },
    async call(name, args, signal, timeoutMs, onProgress) {
      const { client } = await connected();
      let result: Awaited<ReturnType<Client['callTool']>>;
      unauthorized = false;
      try {
        // Aborting `signal` makes the SDK send the server `notifications/cancelled` for this request.
        result = await client.callTool({ name, arguments: args }, leanCallToolResultSchema, {
          signal,
          timeout: timeoutMs,
          resetTimeoutOnProgress: true,
          ...(onProgress && {
            onprogress: (progress) => onProgress(progressLine(progress)),
          }),
        });
      } catch (error) {
        if (signal.aborted) return { output: `${name} was cancelled`, isError: true, code: 'cancelled' };
        return {
          output: `${label} failed during the call of ${name}: ${(error as Error).message}`,
          isError: true,
          code: unauthorized ? 'unauthorized' : 'failed',
        };
      }
      if (client.getServerCapabilities()?.tools?.listChanged) await changesSettled();
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
          const templates = await resourceTemplateLines(client, options);
          if (lines.length === 0 && templates.length === 0) return { output: `${label} lists no resources` };
          if (templates.length > 0)
            lines.push('Templates (fill in the {placeholders} and read the URI):', ...templates);
          return { output: lines.join('\n') };
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
    prompts: async () => (await connected()).prompts,
    async prompt(name, args, signal, timeoutMs, limitBytes) {
      const { client } = await connected();
      try {
        return await getPromptOutcome(client, name, args, { signal, timeout: timeoutMs }, limitBytes);
      } catch (error) {
        if (signal.aborted) return { output: 'cancelled', isError: true, code: 'cancelled' };
        return {
          output: `${label}, prompt ${name}: ${(error as Error).message}`,
          isError: true,
          code: 'failed',
        };
      }
    },
    async close() {
      const open = connection;
      connection = undefined;
      await open?.then((c) => c.transport.close()).catch(() => undefined);
    },
  };
}

/**
 * Every tool the server lists (all pages). A tool that can only be called as a task
 * (`execution.taskSupport: "required"`, the experimental tasks API Skate's client does not speak)
 * is left out, and said on stderr, rather than offered to fail at every call.
 */
async function listTools(client: Client, label: string): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    for (const tool of page.tools) {
      if (tool.execution?.taskSupport === 'required') {
        process.stderr.write(
          `skate executor: ${label}'s tool ${JSON.stringify(tool.name.slice(0, 80))} left out: it runs only as a task, which Skate does not support\n`,
        );
        continue;
      }
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
}

/** One progress notification as a line: `3/5 message`, or what of it the server sent. */
function progressLine(progress: { progress: number; total?: number; message?: string }): string {
  const count =
    progress.total !== undefined ? `${progress.progress}/${progress.total}` : `${progress.progress}`;
  // One line: a server's line breaks would make it several (and a frontend shows it as one).
  return progress.message ? `${count} ${progress.message.slice(0, 200).replace(/[\r\n]+/g, ' ')}` : count;
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

/**
 * The server's resource templates, one line each (`uriTemplate<TAB>name (type): description`); none
 * when it does not implement the listing (an older server answers "method not found").
 */
async function resourceTemplateLines(
  client: Client,
  options: { signal: AbortSignal; timeout: number },
): Promise<string[]> {
  const lines: string[] = [];
  let cursor: string | undefined;
  try {
    do {
      const page = await client.listResourceTemplates(cursor ? { cursor } : undefined, options);
      for (const t of page.resourceTemplates)
        lines.push(
          `${t.uriTemplate}\t${t.name}${t.mimeType ? ` (${t.mimeType})` : ''}${t.description ? `: ${t.description.slice(0, 300)}` : ''}`,
        );
      cursor = page.nextCursor;
    } while (cursor && lines.length < 1000);
  } catch (error) {
    if (options.signal.aborted) throw error;
    return lines;
  }
  return lines;
}
