import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { createAcpAgent } from './acp-agent.js';
import type { AcpAgentFactory } from './acp-agent-port.js';

export interface ServeAcpOptions {
  agents: AcpAgentFactory;
  version: string;
  /** Diagnostics, on stderr: stdout carries the protocol and nothing else. */
  log(line: string): void;
}

/**
 * `readable`, with the reason said on stderr when it fails: a message over the
 * SDK's size limit (32 MiB) ends the connection, which the editor should hear
 * of rather than see the agent just go.
 */
function saying<T>(readable: ReadableStream<T>, log: (line: string) => void): ReadableStream<T> {
  const reader = readable.getReader();
  return new ReadableStream<T>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        log(`the connection to the editor failed: ${(error as Error).message}; closing`);
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * Serves one ACP client (the editor that started us) over stdin and stdout,
 * newline-delimited JSON-RPC, until the client closes stdin or a signal
 * comes; then every session's agent is closed, executors included.
 */
export async function serveAcpOverStdio(options: ServeAcpOptions): Promise<number> {
  // A session/list without cwd lists the directory the editor started us in.
  const acp = createAcpAgent({ ...options, defaultCwd: process.cwd() });
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = acp.app.connect({ ...stream, readable: saying(stream.readable, options.log) });
  const stop = (): void => connection.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await connection.closed;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    await acp.close();
  }
  return 0;
}
