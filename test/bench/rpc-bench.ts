import { type ChildProcess, spawn } from 'node:child_process';
import WebSocket from 'ws';
import type { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { projectRoot } from '../../harness/project-paths.js';
import { median, microsSince, quantile, round } from './stats.js';

const BLOCK = 2_000;
const ROUNDS = 5;
const WARMUP = 1_000;
const PIPELINED_CALLS = 20_000;
const IN_FLIGHT = 64;

/** A ws echo server in its own process: the baseline a tool call round trip is held against. */
async function startEchoServer(): Promise<{ url: string; child: ChildProcess }> {
  const source = `
    import { WebSocketServer } from 'ws';
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false }, () => console.log(server.address().port));
    server.on('connection', (ws) => ws.on('message', (data, binary) => ws.send(data, { binary })));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
    cwd: projectRoot(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve) =>
    child.stdout!.once('data', (data) => resolve(String(data).trim())),
  );
  return { url: `ws://127.0.0.1:${port}/`, child };
}

async function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return socket;
}

function echo(socket: WebSocket, payload: string): Promise<void> {
  return new Promise((resolve) => {
    socket.once('message', () => resolve());
    socket.send(payload);
  });
}

export interface RpcFigures {
  rpc_p50_us: number;
  rpc_p99_us: number;
  raw_ws_p50_us: number;
  raw_ws_p99_us: number;
  rpc_p50_vs_raw_ws: number;
  rpc_calls_per_s: number;
  raw_ws_msgs_per_s: number;
}

/**
 * No-op tool calls against a raw ws echo, measured in alternating blocks so
 * both see the same machine: this host is shared and its speed drifts.
 */
export async function benchRpc(executor: ExecutorClient): Promise<RpcFigures> {
  const echoServer = await startEchoServer();
  const socket = await openSocket(echoServer.url);
  // A payload the size of a no-op call frame, so the baseline moves the same bytes.
  const payload = JSON.stringify({
    id: 1,
    method: 'mutation',
    params: { path: 'callTool', input: { json: { callId: 'call-1', name: 'noop', input: {} } } },
  });
  try {
    for (let i = 0; i < WARMUP; i++) {
      await echo(socket, payload);
      await executor.callTool('noop', {});
    }
    const raw: number[] = [];
    const rpc: number[] = [];
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      for (let i = 0; i < BLOCK; i++) {
        const start = process.hrtime.bigint();
        await echo(socket, payload);
        raw.push(microsSince(start));
      }
      for (let i = 0; i < BLOCK; i++) {
        const start = process.hrtime.bigint();
        await executor.callTool('noop', {});
        rpc.push(microsSince(start));
      }
    }

    let started = process.hrtime.bigint();
    let next = 0;
    const worker = async () => {
      while (next++ < PIPELINED_CALLS) await executor.callTool('noop', {});
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const rpcPerSecond = PIPELINED_CALLS / (microsSince(started) / 1e6);

    started = process.hrtime.bigint();
    let received = 0;
    await new Promise<void>((resolve) => {
      socket.on('message', () => {
        if (++received === PIPELINED_CALLS) resolve();
        else if (received + IN_FLIGHT <= PIPELINED_CALLS) socket.send(payload);
      });
      for (let i = 0; i < IN_FLIGHT; i++) socket.send(payload);
    });
    const rawPerSecond = PIPELINED_CALLS / (microsSince(started) / 1e6);

    return {
      rpc_p50_us: round(median(rpc)),
      rpc_p99_us: round(quantile(rpc, 0.99)),
      raw_ws_p50_us: round(median(raw)),
      raw_ws_p99_us: round(quantile(raw, 0.99)),
      rpc_p50_vs_raw_ws: round(median(rpc) / median(raw), 2),
      rpc_calls_per_s: Math.round(rpcPerSecond),
      raw_ws_msgs_per_s: Math.round(rawPerSecond),
    };
  } finally {
    socket.terminate();
    echoServer.child.kill();
  }
}
