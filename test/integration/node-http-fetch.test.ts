import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import Anthropic, { APIConnectionTimeoutError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { classifyFailure } from '../../harness/provider/classify-failure.js';
import { createNodeHttpFetch } from '../../harness/provider/node-http-fetch.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';

interface Served extends AsyncDisposable {
  url: string;
  /** How each request's connection ended, as the server saw it. */
  outcomes: Promise<'completed' | 'client_closed'>[];
  readonly connections: number;
}

/** A plain HTTP server whose handler each test writes. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Served> {
  const outcomes: Served['outcomes'] = [];
  const server = createServer((req, res) => {
    outcomes.push(
      new Promise((resolve) =>
        res.on('close', () => resolve(res.writableFinished ? 'completed' : 'client_closed')),
      ),
    );
    handler(req, res);
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    outcomes,
    get connections() {
      return connections;
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Reads a body stream chunk by chunk as text. */
function reader(body: ReadableStream<Uint8Array> | null): () => Promise<string | undefined> {
  const read = body!.getReader();
  const decoder = new TextDecoder();
  return async () => {
    const { done, value } = await read.read();
    return done ? undefined : decoder.decode(value);
  };
}

describe('the node:http fetch the SDK uses', () => {
  it('sends the method, headers and body, and streams the response body as it arrives', async () => {
    let release!: () => void;
    const second = new Promise<void>((resolve) => (release = resolve));
    let seen: { method?: string; header?: string; length?: string; body: string } = { body: '' };
    await using server = await serve((req, res) => {
      req.setEncoding('utf8').on('data', (chunk: string) => (seen.body += chunk));
      req.on('end', async () => {
        seen = { ...seen, method: req.method, header: req.headers['x-test'] as string };
        seen.length = req.headers['content-length'];
        res.writeHead(201, { 'content-type': 'text/event-stream', 'request-id': 'req_1' });
        res.write('first\n');
        await second;
        res.end('second\n');
      });
    });
    const { fetch } = createNodeHttpFetch();
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'post',
      headers: new Headers({ 'X-Test': 'yes', 'content-type': 'application/json' }),
      body: '{"é":1}',
    });
    expect(seen).toEqual({ method: 'POST', header: 'yes', length: '8', body: '{"é":1}' });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${server.url}/v1/messages`);
    expect(response.headers.get('request-id')).toBe('req_1');
    const next = reader(response.body);
    // The first chunk is readable while the server still holds back the second.
    expect(await next()).toBe('first\n');
    release();
    expect(await next()).toBe('second\n');
    expect(await next()).toBeUndefined();
  });

  it('reads an error body with text() and json(), and keeps the connection alive between requests', async () => {
    await using server = await serve((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' });
      res.end('{"type":"error"}');
    });
    const { fetch } = createNodeHttpFetch();
    const first = await fetch(server.url);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('3');
    expect(await first.json()).toEqual({ type: 'error' });
    expect(await (await fetch(server.url)).text()).toBe('{"type":"error"}');
    expect(await Promise.all(server.outcomes)).toEqual(['completed', 'completed']);
    expect(server.connections).toBe(1);
  });

  it('rejects with an AbortError when aborted before the response, and closes the connection', async () => {
    await using server = await serve(() => {}); // never answers
    const { fetch } = createNodeHttpFetch();
    const controller = new AbortController();
    const pending = fetch(server.url, { method: 'POST', body: 'x', signal: controller.signal });
    while (server.outcomes.length === 0) await sleep(5);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(await server.outcomes[0]).toBe('client_closed');
  });

  it('rejects at once with an AbortError for a signal aborted before the call', async () => {
    const { fetch } = createNodeHttpFetch();
    await expect(fetch('http://127.0.0.1:9/', { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('errors the body with an AbortError when aborted mid-body, and closes the connection', async () => {
    await using server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n'); // and nothing more
    });
    const { fetch } = createNodeHttpFetch();
    const controller = new AbortController();
    const response = await fetch(server.url, { signal: controller.signal });
    const next = reader(response.body);
    expect(await next()).toBe('data: 1\n\n');
    setTimeout(() => controller.abort(), 20);
    await expect(next()).rejects.toMatchObject({ name: 'AbortError' });
    expect(await server.outcomes[0]).toBe('client_closed');
  });

  it('errors a body the server cut off with a retryable connection failure carrying ECONNRESET', async () => {
    await using server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n', () => res.socket?.destroy());
    });
    const { fetch } = createNodeHttpFetch();
    const response = await fetch(server.url);
    const error = await response.text().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).cause).toMatchObject({ code: 'ECONNRESET' });
    expect(classifyFailure(error)).toMatchObject({ kind: 'connection', retryable: true });
  });

  it('rejects a refused connection with a TypeError whose cause carries ECONNREFUSED', async () => {
    const server = await serve(() => {});
    const { url } = server;
    await server[Symbol.asyncDispose]();
    const { fetch } = createNodeHttpFetch();
    const error = await fetch(url).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
    expect(classifyFailure(error)).toMatchObject({ kind: 'connection', retryable: true });
  });

  it("ends in the SDK's timeout (APIConnectionTimeoutError) when no response comes", async () => {
    await using server = await serve(() => {});
    const client = new Anthropic({
      apiKey: 'sk-ant-test',
      baseURL: server.url,
      fetch: createNodeHttpFetch().fetch,
      maxRetries: 0,
      timeout: 100,
    });
    const attempt = client.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(attempt).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    expect(await server.outcomes[0]).toBe('client_closed');
  });

  it('checks the certificate of an https server: one this process does not trust is refused', async () => {
    const tls = path.join(import.meta.dirname, '..', 'fixtures', 'tls');
    await using api = await fakeMessagesApi([], {
      key: readFileSync(path.join(tls, 'localhost-key.pem')),
      cert: readFileSync(path.join(tls, 'localhost-cert.pem')),
    });
    const { fetch } = createNodeHttpFetch();
    const error = await fetch(`${api.url}/v1/messages`).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).cause).toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(api.requests).toHaveLength(0);
  });

  it.runIf(nodeHasEnvProxy())(
    'sends requests through HTTP_PROXY when NODE_USE_ENV_PROXY is set, as Node 24 does for its fetch',
    async () => {
      const seen: (string | undefined)[] = [];
      await using proxy = await serve((req, res) => {
        seen.push(req.url);
        res.end('via proxy');
      });
      const module = pathToFileURL(distPath('harness', 'provider', 'node-http-fetch.js')).href;
      const script = `const { createNodeHttpFetch } = await import(${JSON.stringify(module)});
        const http = createNodeHttpFetch();
        await http.warm('http://api.invalid');
        const response = await http.fetch('http://api.invalid/v1/messages', { method: 'POST', body: '{}' });
        process.stdout.write(await response.text());`;
      const output = await new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          ['--input-type=module', '-e', script],
          { env: { ...process.env, NODE_USE_ENV_PROXY: '1', HTTP_PROXY: proxy.url } },
          (error, stdout) => (error ? reject(error) : resolve(stdout)),
        );
      });
      expect(output).toBe('via proxy');
      expect(seen).toEqual(['http://api.invalid/v1/messages']);
    },
  );
});

/** Node's env proxy support for its http agents (`proxyEnv`) came in 24.5. */
function nodeHasEnvProxy(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 5);
}
