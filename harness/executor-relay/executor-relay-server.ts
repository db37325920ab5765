import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { startExecutorProcess } from '../executor-client/executor-process.js';
import type { ExecutorLauncher } from '../sandbox/executor-launch.js';
import { bearerCheck } from './bearer-token.js';

export interface ExecutorServerOptions {
  host: string;
  port: number;
  /** Shared secret a harness presents as `Authorization: Bearer <token>`. */
  token: string;
  policy: ResolvedPolicy;
  launcher?: ExecutorLauncher;
  maxFrameBytes: number;
  onLog?(line: string): void;
}

export interface RunningExecutorServer {
  readonly url: string;
  /** Host pids of the executors serving open connections (their sandboxes' outermost process). */
  executorPids(): number[];
  close(): Promise<void>;
}

function reject(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * Serves executors to remote harnesses over WebSocket. The token is checked
 * here, outside the sandbox, before any executor exists; each connection then
 * gets its own executor process, started under the policy exactly as a local
 * harness would start it, and frames are relayed between the two. The token
 * never reaches an executor.
 */
export async function serveExecutors(options: ExecutorServerOptions): Promise<RunningExecutorServer> {
  const authorized = bearerCheck(options.token);
  const http: Server = createServer((_request, response) => {
    response
      .writeHead(426, { 'content-type': 'text/plain' })
      .end('a Skate executor: connect with WebSocket\n');
  });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxFrameBytes,
    perMessageDeflate: false,
  });
  const log = (line: string) => options.onLog?.(line);
  const live = new Set<number>();

  http.on('upgrade', (request, socket, head) => {
    if (!authorized(request.headers.authorization)) {
      log(`refused ${request.socket.remoteAddress}: bad or missing token`);
      reject(socket, 401, 'Unauthorized');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const peer = request.socket.remoteAddress;
      log(`connection from ${peer}`);
      // Frames can arrive while the sandbox is still being built; hold them until the executor is up.
      let forward: ((frame: string) => void) | undefined;
      const early: string[] = [];
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        // Frames are one per line towards the executor; JSON never needs a raw newline.
        const frame = data.toString().replace(/[\r\n]/g, ' ');
        if (forward) forward(frame);
        else early.push(frame);
      });
      void startExecutorProcess(
        {
          policy: options.policy,
          maxFrameBytes: options.maxFrameBytes,
          ...(options.launcher && { launcher: options.launcher }),
          onLog: (line) => log(`[executor] ${line}`),
        },
        { frame: (text) => ws.send(text) },
      ).then(
        (executor) => {
          const pid = executor.child.pid;
          if (pid !== undefined) live.add(pid);
          forward = (frame) => executor.channel.send(frame);
          for (const frame of early.splice(0)) forward(frame);
          const stop = () => {
            executor.channel.close();
            setTimeout(() => executor.child.kill('SIGKILL'), 3_000).unref();
          };
          if (ws.readyState !== ws.OPEN) stop();
          ws.on('close', stop);
          void executor.exited.then((exit) => {
            if (pid !== undefined) live.delete(pid);
            log(`executor for ${peer} ended: ${exit.reason}`);
            ws.close(1011, 'executor exited');
          });
        },
        (error: Error) => {
          log(`cannot start an executor for ${peer}: ${error.message}`);
          ws.close(1011, 'executor failed to start');
        },
      );
    });
  });

  await new Promise<void>((resolve, reject_) => {
    http.once('error', reject_);
    http.listen(options.port, options.host, resolve);
  });
  const address = http.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `ws://${host}:${address.port}`,
    executorPids: () => [...live],
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
