#!/usr/bin/env node
/**
 * The js_eval worker process: `js-eval-worker.js MEMORY_MIB`. It loads this
 * Node's isolated-vm build, which on Node 20 needs `--no-node-snapshot`; the
 * executor itself starts without that flag, and a native module that fails to
 * load (or crashes) takes down only this process. Before it says ready it makes
 * its isolate and caps its own memory (`capWorkerMemory`). Requests arrive as
 * JSON lines on stdin, answers leave on stdout; stdin closing (the executor
 * gone) ends the process.
 */
import { Console } from 'node:console';
import { LineSplitter } from '../../shared/line-splitter.js';
import { type IsolatedVm, loadIsolatedVm } from './isolated-vm-loader.js';
import { MAX_MESSAGE_BYTES, type WorkerMessage, WorkerRequest } from './protocol.js';
import { ReplSession } from './repl-session.js';
import { capWorkerMemory } from './worker-memory-cap.js';

// stdout is the channel: anything else printed there would corrupt it.
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

function send(message: WorkerMessage): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** Said once, then gone: the tool answers every call with it. */
function unavailable(message: Extract<WorkerMessage, { type: 'unavailable' }>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`, () => process.exit(0));
}

async function start(ivm: IsolatedVm, memoryMiB: number): Promise<void> {
  const session = new ReplSession(ivm, memoryMiB);
  // The isolate first: what it reserves is part of the floor the cap is measured from.
  await session.prepare();
  const cap = capWorkerMemory(memoryMiB);
  if ('reason' in cap) return unavailable({ type: 'unavailable', ...cap });
  serve(session);
}

function serve(session: ReplSession): void {
  // One evaluation at a time, in arrival order; the tool also serialises, this keeps the worker safe alone.
  let queue: Promise<void> = Promise.resolve();
  const splitter = new LineSplitter(
    MAX_MESSAGE_BYTES,
    (line) => {
      let request: WorkerRequest;
      try {
        request = WorkerRequest.parse(JSON.parse(line));
      } catch (error) {
        process.stderr.write(`js_eval worker: invalid request: ${(error as Error).message}\n`);
        process.exit(2);
      }
      queue = queue.then(async () => {
        try {
          const result = await session.evaluate(request, (level, text) =>
            send({ type: 'log', id: request.id, level, text }),
          );
          send({ type: 'result', id: request.id, ...result });
        } catch (error) {
          // A failure of the worker's own (creating an isolate, say): start clean next time.
          session.discard();
          const text = `js_eval internal error: ${error instanceof Error ? error.message : String(error)}`;
          send({ type: 'result', id: request.id, status: 'error', text, logsDropped: 0, reset: true });
        }
      });
    },
    (bytes) => {
      process.stderr.write(`js_eval worker: request of ${bytes} bytes is over the limit\n`);
      process.exit(2);
    },
  );
  process.stdin.on('data', (chunk: Buffer) => splitter.push(chunk));
  process.stdin.on('end', () => process.exit(0));
  process.stdout.on('error', () => process.exit(0));
  send({ type: 'ready', pid: process.pid });
}

const memoryMiB = Number(process.argv[2]);
if (!Number.isInteger(memoryMiB) || memoryMiB < 8) {
  process.stderr.write(`js_eval worker: usage: js-eval-worker.js MEMORY_MIB (got ${process.argv[2]})\n`);
  process.exit(2);
}
const loaded = loadIsolatedVm();
if ('ivm' in loaded) await start(loaded.ivm, memoryMiB);
else unavailable({ type: 'unavailable', ...loaded });
