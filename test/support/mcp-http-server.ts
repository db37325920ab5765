import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

export interface McpHttpServerOptions {
  transport: 'http' | 'sse';
  /** Every request must carry this `Authorization` header, or is answered 401. */
  authorization?: string;
}

/** A real MCP server (the SDK's `McpServer`) over Streamable HTTP or SSE on 127.0.0.1, for tests. */
export interface TestMcpHttpServer extends AsyncDisposable {
  /** The endpoint to configure: `http://127.0.0.1:PORT/mcp` (or `/sse`). */
  url: string;
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** The `Authorization` headers seen, in order. */
  readonly authorizations: (string | undefined)[];
  /** Tool calls served, in order. */
  readonly calls: { name: string; args: unknown }[];
}

function serverWithTools(calls: TestMcpHttpServer['calls']): McpServer {
  const server = new McpServer({ name: 'remote-test', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echoes its text back',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => {
      calls.push({ name: 'echo', args: { text } });
      return { content: [{ type: 'text', text: `remote echo: ${text}` }] };
    },
  );
  return server;
}

export async function testMcpHttpServer(options: McpHttpServerOptions): Promise<TestMcpHttpServer> {
  const calls: TestMcpHttpServer['calls'] = [];
  const authorizations: (string | undefined)[] = [];
  const sse = new Map<string, SSEServerTransport>();
  let connections = 0;
  const httpServer = http.createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    if (options.authorization !== undefined && req.headers.authorization !== options.authorization) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    void (async () => {
      if (options.transport === 'http' && url.pathname === '/mcp') {
        // Stateless: a server and transport per request, as the SDK's examples do.
        const server = serverWithTools(calls);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res);
        return;
      }
      if (options.transport === 'sse' && req.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', res);
        sse.set(transport.sessionId, transport);
        res.on('close', () => sse.delete(transport.sessionId));
        await serverWithTools(calls).connect(transport);
        return;
      }
      if (options.transport === 'sse' && req.method === 'POST' && url.pathname === '/messages') {
        const transport = sse.get(url.searchParams.get('sessionId') ?? '');
        if (!transport) {
          res.writeHead(404).end('no such session');
          return;
        }
        await transport.handlePostMessage(req, res);
        return;
      }
      res.writeHead(404).end('not found');
    })().catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500).end(error.message);
    });
  });
  httpServer.on('connection', () => connections++);
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${options.transport === 'http' ? 'mcp' : 'sse'}`,
    port,
    get connections() {
      return connections;
    },
    authorizations,
    calls,
    async [Symbol.asyncDispose]() {
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

/** A plain listener that only counts connections (a host a confined server must not reach). */
export async function connectionCounter(): Promise<
  { port: number; readonly count: number } & AsyncDisposable
> {
  let count = 0;
  const server = http.createServer((_req, res) => res.end('reached'));
  server.on('connection', () => count++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    get count() {
      return count;
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
