import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { authFetch, checkAuthUrl } from '../../../harness/mcp-oauth/auth-fetch.js';
import { listenForCallback } from '../../../harness/mcp-oauth/callback-listener.js';

/** A local server answering every request with `handler`. */
async function serve(
  handler: http.RequestListener,
): Promise<{ url: string; hits: number } & AsyncDisposable> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get hits() {
      return hits;
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('checkAuthUrl', () => {
  it.each([
    'https://auth.example.com/authorize',
    'http://127.0.0.1:8080/token',
    'http://localhost/x',
    'http://[::1]:9/x',
  ])('takes %s', (url) => {
    expect(checkAuthUrl(url, 'x').href).toBe(new URL(url).href);
  });

  it.each([
    'http://auth.example.com/authorize',
    'http://192.0.2.1/token',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'ftp://auth.example.com/',
    'not a url',
  ])('refuses %s', (url) => {
    expect(() => checkAuthUrl(url, 'the endpoint')).toThrow(/refused|not a URL/);
  });
});

describe('authFetch', () => {
  it('refuses a URL before any request', async () => {
    await expect(authFetch()('http://192.0.2.1/.well-known/x')).rejects.toMatchObject({
      code: 'insecure_url',
    });
  });

  it('reads an answer whole up to its bound, and refuses a larger one', async () => {
    await using server = await serve((_req, res) => res.end('x'.repeat(5000)));
    expect(await (await authFetch({ maxBytes: 5000 })(server.url)).text()).toHaveLength(5000);
    await expect(authFetch({ maxBytes: 4999 })(server.url)).rejects.toMatchObject({ code: 'bad_response' });
  });

  it('gives up on a server that does not answer in time', async () => {
    await using server = await serve(() => undefined);
    await expect(authFetch({ timeoutMs: 300 })(server.url)).rejects.toMatchObject({ code: 'timeout' });
  });

  it('follows no redirect itself (a file: target is returned, not opened)', async () => {
    await using server = await serve((_req, res) =>
      res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
    );
    const answer = await authFetch()(server.url);
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('file:///etc/passwd');
    expect(await answer.text()).toBe('');
  });
});

describe('listenForCallback', () => {
  it('ignores other paths, then resolves with the code of a callback carrying its state', async () => {
    await using listener = await listenForCallback({ state: 'the-state', timeoutMs: 10_000 });
    expect(listener.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const origin = new URL(listener.redirectUrl).origin;
    expect((await fetch(`${origin}/favicon.ico`)).status).toBe(404);
    const page = await fetch(`${listener.redirectUrl}?code=abc&state=the-state`);
    expect(page.status).toBe(200);
    expect(await listener.code).toBe('abc');
  });

  it('refuses a callback with another state, or an error, and ends', async () => {
    await using listener = await listenForCallback({ state: 'the-state', timeoutMs: 10_000 });
    const forged = await fetch(`${listener.redirectUrl}?code=abc&state=other`);
    expect(forged.status).toBe(400);
    await expect(listener.code).rejects.toMatchObject({ code: 'callback_refused' });
    await using second = await listenForCallback({ state: 's', timeoutMs: 10_000 });
    await fetch(`${second.redirectUrl}?error=access_denied&error_description=%1B%5D0%3Bx&state=s`);
    await expect(second.code).rejects.toThrow(/access_denied: ␛\]0;x/);
  });

  it('times out when nobody comes back', async () => {
    await using listener = await listenForCallback({ state: 's', timeoutMs: 200 });
    await expect(listener.code).rejects.toMatchObject({ code: 'timeout' });
  });
});
