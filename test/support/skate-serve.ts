import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { distPath } from '../../harness/project-paths.js';
import type { StreamMessage } from '../../shared/serve-api.js';

export const SERVE_TOKEN = 'serve-test-token-0123456789';

/** A `skate serve` child process, from the built CLI, on a free port. */
export interface SkateServe extends AsyncDisposable {
  readonly url: string;
  readonly child: ChildProcess;
  stderr(): string;
  /** `fetch` against the server with the token (unless `headers` has its own authorization). */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Sends `signal` and resolves to the exit code (or signal name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
  /** Resolves to the exit code (or signal name) once the process has exited. */
  exited(): Promise<number | string>;
}

export async function startSkateServe(args: string[], env: NodeJS.ProcessEnv): Promise<SkateServe> {
  const child = spawn(
    process.execPath,
    [distPath('cli', 'skate.js'), 'serve', '--listen', '127.0.0.1:0', ...args],
    { env: { SKATE_SERVE_TOKEN: SERVE_TOKEN, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout!.resume();
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`skate serve did not start:\n${stderr}`)), 20_000);
    const look = (): void => {
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        child.stderr!.off('data', look);
        resolve(match[1]!);
      }
    };
    child.stderr!.on('data', look);
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`skate serve exited (${code}) before listening:\n${stderr}`));
    });
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const [code, by] = await exited;
    return code ?? by ?? 'unknown';
  };
  return {
    url,
    child,
    stderr: () => stderr,
    request: (path, init = {}) =>
      fetch(`${url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${SERVE_TOKEN}`, ...(init.headers as Record<string, string>) },
      }),
    stop,
    exited: async () => {
      const [code, by] = await exited;
      return code ?? by ?? 'unknown';
    },
    async [Symbol.asyncDispose]() {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await stop();
      clearTimeout(timer);
    },
  };
}

/** One SSE message as received. */
export interface SseMessage {
  id: number;
  event: string;
  data: StreamMessage;
}

/** The SSE messages of a response body, as they arrive; `onMessage` may stop reading by returning false. */
export async function* sseMessages(response: Response): AsyncGenerator<SseMessage> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
      }
      if (fields.data === undefined) continue;
      yield { id: Number(fields.id), event: fields.event ?? 'message', data: JSON.parse(fields.data) };
    }
  }
}

/** Every SSE message of a response, to its end. */
export async function allSseMessages(response: Response): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of sseMessages(response)) messages.push(message);
  return messages;
}
