import type { Readable } from 'node:stream';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isRemoteBoot, type McpBootServer } from '../../shared/mcp-servers.js';

export interface McpTransportOptions {
  /** `ExecutorBoot.commandWrapper`: a stdio server runs as confined as a shell command. */
  wrapper: readonly string[];
  cwd: string;
  /**
   * A remote server is reached through the harness's allowlist proxy (inside the kernel sandbox,
   * whose network namespace has no other way out); elsewhere (best effort) directly.
   */
  viaProxy: boolean;
  /** Told when a remote server answers HTTP 401 (its credentials were refused). */
  onUnauthorized?: () => void;
}

/** The SDK transport to a server: its child over stdio, or a remote one over Streamable HTTP or SSE. */
export async function createMcpTransport(
  server: McpBootServer,
  options: McpTransportOptions,
): Promise<{ transport: Transport; stderr?: Readable | null }> {
  if (isRemoteBoot(server)) {
    const base: FetchLike = options.viaProxy
      ? (await import('./proxied-fetch.js')).proxiedFetch()
      : globalThis.fetch;
    const fetch: FetchLike = async (input, init) => {
      const response = await base(input, init);
      if (response.status === 401) options.onUnauthorized?.();
      return response;
    };
    const requestInit: RequestInit = { headers: server.headers };
    const url = new URL(server.url);
    if (server.type === 'http') {
      const { StreamableHTTPClientTransport } = await import(
        '@modelcontextprotocol/sdk/client/streamableHttp.js'
      );
      return { transport: new StreamableHTTPClientTransport(url, { requestInit, fetch }) };
    }
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    return { transport: new SSEClientTransport(url, { requestInit, fetch }) };
  }
  const { McpStdioTransport } = await import('./mcp-stdio-transport.js');
  // Without `--pipe-output`: the server speaks JSON-RPC on the socket it was given, so copying its
  // output through skate-confine into a pipe would only add a process hop to every answer.
  const wrapper = options.wrapper.filter((arg) => arg !== '--pipe-output');
  const [command, ...args] = [...wrapper, server.command, ...server.args] as [string, ...string[]];
  // The transport adds the executor's own (already scrubbed) PATH, HOME and the like.
  const transport = new McpStdioTransport({ command, args, env: server.env, cwd: options.cwd });
  return { transport, stderr: transport.stderr };
}
