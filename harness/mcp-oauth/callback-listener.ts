import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inertText } from '../terminal/inert-text.js';
import { McpAuthError } from './mcp-auth-error.js';

export interface CallbackListener extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/callback`: the `redirect_uri` of this flow. */
  redirectUrl: string;
  /** The authorization code, once the browser comes back with this flow's `state`; rejects otherwise. */
  code: Promise<string>;
}

const PAGE_HEADERS = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

function sameState(expected: string, got: string | null): boolean {
  if (got === null) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(got);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A one-shot listener on 127.0.0.1 (a port of the kernel's choosing) for the authorization
 * server's redirect. The first request to `/callback` ends it: with this flow's `state` and a
 * `code` it resolves; with another state (a forged or stale callback), an `error`, or no code, the
 * login fails and no token is asked for. Other paths get a 404 and change nothing.
 */
export async function listenForCallback(options: {
  state: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}): Promise<CallbackListener> {
  let settle: { resolve(code: string): void; reject(error: Error): void } | undefined;
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  code.catch(() => undefined);
  let done = false;
  const finish = (outcome: string | Error): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', cancel);
    if (typeof outcome === 'string') settle?.resolve(outcome);
    else settle?.reject(outcome);
    server.close();
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback' || done) {
      res.writeHead(404, PAGE_HEADERS).end('not found\n');
      return;
    }
    const params = url.searchParams;
    if (!sameState(options.state, params.get('state'))) {
      res
        .writeHead(400, PAGE_HEADERS)
        .end('Skate refused this callback: its state is not the one of this login.\n');
      finish(
        new McpAuthError(
          'callback_refused',
          "the authorization callback did not carry this login's state (a forged or stale callback): refused, no token was asked for",
        ),
      );
      return;
    }
    const error = params.get('error');
    const got = params.get('code');
    if (error !== null || !got) {
      res.writeHead(400, PAGE_HEADERS).end('Skate: the authorization did not succeed.\n');
      const description = params.get('error_description');
      finish(
        new McpAuthError(
          'callback_refused',
          `the authorization server answered ${inertText((error ?? 'no code').slice(0, 100))}${description ? `: ${inertText(description.slice(0, 300))}` : ''}`,
        ),
      );
      return;
    }
    res.writeHead(200, PAGE_HEADERS).end('Skate is authorized. You can close this tab.\n');
    finish(got);
  });
  server.on('connection', (socket) => socket.setTimeout(10_000, () => socket.destroy()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const timer = setTimeout(
    () =>
      finish(
        new McpAuthError(
          'timeout',
          `no authorization came back within ${Math.round(options.timeoutMs / 1000)} s`,
        ),
      ),
    options.timeoutMs,
  );
  timer.unref();
  const cancel = (): void => finish(new McpAuthError('cancelled', 'the login was cancelled'));
  if (options.signal?.aborted) cancel();
  else options.signal?.addEventListener('abort', cancel, { once: true });
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    code,
    async [Symbol.asyncDispose]() {
      finish(new McpAuthError('timeout', 'the login ended'));
      server.closeAllConnections();
    },
  };
}
