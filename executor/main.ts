#!/usr/bin/env node
/**
 * The executor process. The harness that spawned it is its only peer: frames
 * arrive on fd 0 and leave on fd 1, both ends of socketpairs that only the two
 * processes hold. Processes the executor starts get their own stdio, so they
 * cannot reach this channel. Logs go to fd 2.
 */
import './stdio-guard.js';
import net from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { checkExecutorBoot } from '../shared/check-executor-boot.js';
import type { ExecutorBoot } from '../shared/executor-boot.js';
import { LineSplitter } from '../shared/line-splitter.js';
import { createExecutor, type Executor } from './executor.js';
import { startNetworkForwarders } from './network-forwarder.js';
import { RpcServer } from './server/rpc-server.js';
import { tierUpFlags } from './tier-up-flags.js';

/** Grace for tools to kill what they started before the process exits. */
const EXIT_GRACE_MS = 300;
/** The boot frame carries a policy; nothing legitimate comes near this. */
const MAX_BOOT_BYTES = 1024 * 1024;

function fatal(message: string, code: number): never {
  process.stderr.write(`skate executor: ${message}\n`);
  process.exit(code);
}

/** Frames are read into one buffer, reused: no allocation and no stream machinery per read. */
const READ_BUFFER_BYTES = 64 * 1024;

function openChannel(): { input: net.Socket; output: net.Socket } {
  // Node's constructor takes `onread` (as `connect` does); @types/node 20 lists it only for `connect`.
  const reading: net.SocketConstructorOpts & { onread: net.OnReadOpts } = {
    fd: 0,
    readable: true,
    writable: false,
    onread: { buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES), callback: receive },
  };
  try {
    return {
      input: new net.Socket(reading),
      output: new net.Socket({ fd: 1, readable: false, writable: true }),
    };
  } catch {
    return fatal(
      'stdin and stdout must be the channel from a harness; to serve remote harnesses run `skate executor serve --listen HOST:PORT`',
      2,
    );
  }
}

const { input, output } = openChannel();
const send = (frame: string) => {
  output.write(`${frame}\n`);
};

let server: RpcServer | undefined;
let executor: Executor | undefined;
let stopping = false;
let tieredUp = false;
let maxFrameBytes = MAX_BOOT_BYTES;

/** Stops serving, cancels running calls, lets tools release what they hold, and exits. */
function stop(reason: string): void {
  if (stopping) return;
  stopping = true;
  server?.close();
  executor?.runner.cancelAll(reason);
  void executor?.registry.dispose();
  setTimeout(() => process.exit(0), EXIT_GRACE_MS).unref();
  // Exit as soon as the event loop is otherwise idle.
  input.destroy();
  output.end();
}

/** Frames that arrived while a boot frame the hand check refused was still being read by zod. */
let waiting: string[] | undefined;

function boot(config: ExecutorBoot): void {
  maxFrameBytes = config.maxFrameBytes;
  // Only inside the kernel sandbox is there a loopback of its own and the proxy's socket bound in.
  if (config.enforcement === 'kernel') {
    startNetworkForwarders(config.policy.network, (line) =>
      process.stderr.write(`skate executor: ${line}\n`),
    );
  }
  const booted = createExecutor(config, () => stop('shutdown requested'));
  executor = booted;
  server = new RpcServer({
    procedures: booted.procedures,
    send,
    onInternalError: (error) => console.error('internal error:', error.cause ?? error),
    // A harness lists tools, then waits for its model: that wait is when to warm up, after the answer is out.
    onAnswered: (path) => {
      if (path !== 'listTools') return;
      if (!tieredUp) {
        tieredUp = true;
        // Measured on Node 20 (`npm run bench -- mcp`): round trip 1.84–2.07× → 1.70–1.73× the SDK's direct.
        for (const flag of tierUpFlags()) setFlagsFromString(flag);
      }
      booted.warmUpWhenIdle();
    },
  });
}

/** zod reads what the hand check refused: it words the refusal, or accepts what the check was too strict for. */
async function bootWithZod(raw: unknown): Promise<void> {
  const { ExecutorBoot } = await import('../shared/executor-boot.js');
  const parsed = ExecutorBoot.safeParse(raw);
  if (!parsed.success) fatal(`invalid boot frame: ${parsed.error.message}`, 2);
  boot(parsed.data);
  const queued = waiting ?? [];
  waiting = undefined;
  for (const line of queued) server!.receive(line);
}

const splitter = new LineSplitter(
  Number.MAX_SAFE_INTEGER,
  (line) => {
    if (server) {
      server.receive(line);
      return;
    }
    if (waiting) {
      waiting.push(line);
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      fatal(`invalid boot frame: ${(error as Error).message}`, 2);
    }
    const config = checkExecutorBoot(raw);
    if (config) {
      boot(config);
      return;
    }
    waiting = [];
    void bootWithZod(raw);
  },
  (bytes, head) => {
    if (!server) fatal(`boot frame of ${bytes} bytes is too large`, 2);
    server.oversized(bytes, maxFrameBytes, head);
  },
);

// The frame limit applies once booted; the splitter checks against the live value.
function receive(bytes: number, buffer: Uint8Array): boolean {
  splitter.setLimit(server ? maxFrameBytes : MAX_BOOT_BYTES);
  splitter.push(Buffer.from(buffer.buffer, buffer.byteOffset, bytes), true);
  return true;
}
// The harness closing its end, or dying, is the signal to go: no executor outlives its harness.
input.on('end', () => stop('harness closed the channel'));
input.on('error', () => stop('channel error'));
output.on('error', () => stop('channel error'));
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('unhandledRejection', (reason) => console.error('unhandled rejection:', reason));
