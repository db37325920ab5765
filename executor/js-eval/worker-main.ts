#!/usr/bin/env node
/**
 * The js_eval worker process. It loads this Node's isolated-vm build, which on
 * Node 20 needs `--no-node-snapshot`; the executor itself starts without that
 * flag, and a native module that fails to load (or crashes) takes down only this
 * process. Requests arrive as JSON lines on stdin, answers leave on stdout;
 * stdin closing (the executor gone) ends the process.
 */
import { Console } from 'node:console';
import { LineSplitter } from '../../shared/line-splitter.js';
import { type IsolatedVm, loadIsolatedVm } from './isolated-vm-loader.js';
import { MAX_MESSAGE_BYTES, type WorkerMessage, WorkerRequest } from './protocol.js';
import { ReplSession } from './repl-session.js';

// stdout is the channel: anything else printed there would corrupt it.
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

function send(message: WorkerMessage): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function serve(ivm: IsolatedVm): void {
  const session = new ReplSession(ivm);
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

const loaded = loadIsolatedVm();
if ('ivm' in loaded) serve(loaded.ivm);
else {
  // Said once, then gone: the tool answers every call with it.
  process.stdout.write(
    `${JSON.stringify({ type: 'unavailable', ...loaded } satisfies WorkerMessage)}\n`,
    () => process.exit(0),
  );
}
