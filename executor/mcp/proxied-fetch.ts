import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Readable } from 'node:stream';
import tls from 'node:tls';
import { SANDBOX_CA_BUNDLE, SANDBOX_PROXY_SOCKET } from '../../shared/sandbox-network.js';

/** What the MCP SDK's HTTP transports call instead of the global `fetch`. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Largest CONNECT answer head read before giving up. */
const MAX_ANSWER_BYTES = 4096;

/** Statuses whose response has no body (`Response` refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `fetch` through the harness's allowlist proxy, whose unix socket is the sandbox's only way out
 * (issue #21): Node 20's own `fetch` ignores proxy variables, so the MCP SDK is handed this. Plain
 * `http://` goes as an absolute-form request the proxy judges; `https://` through a CONNECT, then
 * TLS to the host itself (its name checked against the host's CA bundle, as bound in). Redirects
 * are not followed here: the SDK decides.
 */
export function proxiedFetch(proxySocket = SANDBOX_PROXY_SOCKET, caFile = SANDBOX_CA_BUNDLE): FetchLike {
  const httpAgent = new http.Agent({ keepAlive: true });
  const httpsAgent = new https.Agent({ keepAlive: true });
  let ca: string[] | undefined;
  // The agent's own hook: each new connection is a tunnel through the proxy.
  (httpsAgent as unknown as { createConnection: unknown }).createConnection = (
    options: tls.ConnectionOptions & { host: string; port: number },
    done: (error: Error | null, socket?: net.Socket) => void,
  ): undefined => {
    ca ??= caBundle(caFile);
    tunnel(proxySocket, options.host, Number(options.port)).then(
      (socket) => {
        const secure = tls.connect({ socket, servername: options.host, ALPNProtocols: ['http/1.1'], ca });
        secure.once('secureConnect', () => done(null, secure));
        secure.once('error', (error) => done(error));
      },
      (error: Error) => done(error),
    );
    return undefined;
  };
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(String(input));
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, key) => {
        headers[key] = value;
      });
      const body = bodyOf(init.body);
      if (body !== undefined) headers['content-length'] = String(body.byteLength);
      const request =
        url.protocol === 'https:'
          ? https.request(url, { method: init.method ?? 'GET', headers, agent: httpsAgent })
          : http.request({
              socketPath: proxySocket,
              agent: httpAgent,
              method: init.method ?? 'GET',
              path: url.href,
              headers: { ...headers, host: url.host },
            });
      const signal = init.signal;
      const abort = (): void => {
        request.destroy(new DOMException('This operation was aborted', 'AbortError'));
      };
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      request.once('error', (error) => {
        signal?.removeEventListener('abort', abort);
        reject(error);
      });
      request.once('response', (response) => {
        const status = response.statusCode ?? 502;
        const answer = new Headers();
        for (const [key, value] of Object.entries(response.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) answer.append(key, one);
        }
        response.once('close', () => signal?.removeEventListener('abort', abort));
        const stream = NULL_BODY.has(status)
          ? null
          : (Readable.toWeb(response) as unknown as ReadableStream<Uint8Array>);
        if (!stream) response.resume();
        resolve(new Response(stream, { status, statusText: response.statusMessage ?? '', headers: answer }));
      });
      request.end(body);
    });
}

/** A socket to `host:port` through the proxy's CONNECT. */
function tunnel(proxySocket: string, host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxySocket);
    const target = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    let answer = Buffer.alloc(0);
    const fail = (error: Error): void => {
      socket.destroy();
      reject(error);
    };
    socket.once('error', fail);
    socket.on('data', function onData(chunk: Buffer) {
      answer = Buffer.concat([answer, chunk]);
      const end = answer.indexOf('\r\n\r\n');
      if (end < 0) {
        if (answer.length > MAX_ANSWER_BYTES) fail(new Error('the network proxy sent no answer'));
        return;
      }
      socket.removeListener('data', onData);
      socket.removeListener('error', fail);
      const head = answer.subarray(0, end).toString('latin1');
      if (!/^HTTP\/1\.[01] 200 /.test(head)) {
        fail(new Error(`the network proxy refused ${target}: ${head.split('\r\n')[0]}`));
        return;
      }
      if (answer.length > end + 4) socket.unshift(answer.subarray(end + 4));
      resolve(socket);
    });
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

function bodyOf(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  // The SDK sends JSON strings; anything else is a programming error here.
  throw new TypeError('proxiedFetch sends string or byte bodies only');
}

/** The system's roots plus the bundle bound in (a TLS-intercepting proxy's CA, where there is one). */
function caBundle(file: string): string[] | undefined {
  try {
    return [...tls.rootCertificates, readFileSync(file, 'utf8')];
  } catch {
    return undefined;
  }
}
