import { type ChildProcess, spawn } from 'node:child_process';
import type { IsolatedVmBuild } from '../../shared/js-eval-runtime.js';
import { LineSplitter } from '../../shared/line-splitter.js';
import { distFile } from '../dist-file.js';
import { describeUnavailable } from './isolated-vm-loader.js';
import {
  type EvalRequest,
  type EvalResultMessage,
  type EvalStatus,
  type LogLevel,
  MAX_MESSAGE_BYTES,
  WorkerMessage,
} from './protocol.js';

/** Where the bundler puts the worker (scripts/bundle.mjs). */
const WORKER_FILE = 'executor/bundle/js-eval-worker.js';
/** Loading isolated-vm takes ~100 ms; anything near this means the worker is broken. */
const READY_TIMEOUT_MS = 15_000;
/** Beyond the evaluation's own timeout, how long the worker has to answer before it is killed. */
const WATCHDOG_GRACE_MS = 2_000;
/** stderr kept to explain a worker that died. */
const STDERR_TAIL_CHARS = 2_000;
/** What V8, isolated-vm and the C++ runtime print when an allocation fails for good. */
const OUT_OF_MEMORY = /out[ -]of[ -]memory|is_heap_oom|Allocation failed|bad_alloc|Cannot allocate memory/i;

export interface EvalCall {
  code: string;
  timeoutMs: number;
  /** The isolate's heap limit; the worker's whole memory is capped from it (`capWorkerMemory`). */
  memoryMiB: number;
  maxLogBytes: number;
  maxValueChars: number;
  /** Directory the worker starts in, when it has to be started. */
  cwd: string;
  signal: AbortSignal;
  onLog(level: LogLevel, text: string): void;
}

/** How a call ended: the worker's statuses plus those only this side can see. */
export interface EvalReply {
  /** `unavailable`: isolated-vm did not load; `text` says why and how to fix it (`describeUnavailable`). */
  status: EvalStatus | 'cancelled' | 'crashed' | 'unavailable';
  text: string;
  logsDropped: number;
  /** Whether earlier state is gone. */
  reset: boolean;
}

const CANCELLED: EvalReply = { status: 'cancelled', text: 'cancelled', logsDropped: 0, reset: false };

interface Running {
  child: ChildProcess;
  /** What it was started with: a call asking for another limit gets a new worker. */
  memoryMiB: number;
  ready: Promise<void>;
  stderr: string;
  /** Set when we kill it, so its exit is not mistaken for a crash. */
  killed: boolean;
  /** The call waiting on this worker, if any. */
  pending?: { id: number; onLog: EvalCall['onLog']; settle(reply: EvalReply): void };
}

/**
 * The tool's handle on its worker process: starts it on first use, keeps it
 * for later calls, starts a new one after it dies, and kills it on timeout
 * overrun, cancellation or dispose. One evaluation at a time.
 */
export class JsEvalWorker {
  private running: Running | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private disposed = false;
  /** A worker died between calls: the next reply must say its state is gone. */
  private lostState = false;
  /** Set once a worker reported that isolated-vm does not load: no use starting another. */
  private unavailable: string | undefined;

  /** `build` is the isolated-vm the worker will load (it decides the worker's Node flags). */
  constructor(private readonly build: IsolatedVmBuild) {}

  evaluate(call: EvalCall): Promise<EvalReply> {
    let started = false;
    const turn = this.queue.then(() => {
      started = true;
      return this.evaluateNow(call);
    });
    this.queue = turn.catch(() => undefined);
    // A call cancelled while it waits for its turn answers at once rather than after the one ahead.
    const cancelledWhileQueued = new Promise<EvalReply>((resolve) => {
      const onAbort = () => {
        if (!started) resolve(CANCELLED);
      };
      call.signal.addEventListener('abort', onAbort, { once: true });
      turn.finally(() => call.signal.removeEventListener('abort', onAbort)).catch(() => undefined);
    });
    return Promise.race([turn, cancelledWhileQueued]);
  }

  /** Kills the worker and waits for it to be gone; the tool's owner is done with it. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const child = this.running?.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.kill();
    await exited;
  }

  private async evaluateNow(call: EvalCall): Promise<EvalReply> {
    if (call.signal.aborted) return CANCELLED;
    if (this.disposed) throw new Error('js_eval worker was disposed');
    if (this.unavailable) return unavailableReply(this.unavailable);
    if (this.running && this.running.memoryMiB !== call.memoryMiB) {
      this.kill();
      this.lostState = true;
    }
    const running = this.running ?? this.start(call.cwd, call.memoryMiB);
    try {
      await running.ready;
    } catch (error) {
      if (this.unavailable) return unavailableReply(this.unavailable);
      throw error;
    }
    const id = this.nextId++;
    const lostState = this.lostState;
    this.lostState = false;
    return new Promise<EvalReply>((resolve) => {
      const settle = (reply: EvalReply) => {
        clearTimeout(watchdog);
        call.signal.removeEventListener('abort', onAbort);
        running.pending = undefined;
        resolve(lostState ? { ...reply, reset: true } : reply);
      };
      const onAbort = () => {
        // Killing the worker is the one stop that always works, even mid-loop in native code.
        this.kill();
        settle({ ...CANCELLED, reset: true });
      };
      const watchdog = setTimeout(() => {
        this.kill();
        settle({
          status: 'timeout',
          text: `timed out after ${call.timeoutMs} ms (the worker did not stop the evaluation and was killed)`,
          logsDropped: 0,
          reset: true,
        });
      }, call.timeoutMs + WATCHDOG_GRACE_MS);
      running.pending = { id, onLog: call.onLog, settle };
      call.signal.addEventListener('abort', onAbort, { once: true });
      const { code, timeoutMs, maxLogBytes, maxValueChars } = call;
      const request: EvalRequest = { type: 'eval', id, code, timeoutMs, maxLogBytes, maxValueChars };
      running.child.stdin!.write(`${JSON.stringify(request)}\n`);
    });
  }

  private start(cwd: string, memoryMiB: number): Running {
    const flags = this.build.needsNoNodeSnapshot ? ['--no-node-snapshot'] : [];
    const child = spawn(process.execPath, [...flags, distFile(WORKER_FILE), String(memoryMiB)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      // Nothing of the executor's environment: the worker needs none of it.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      cwd,
    });
    let markReady!: () => void;
    let failReady!: (error: Error) => void;
    const running: Running = {
      child,
      memoryMiB,
      stderr: '',
      killed: false,
      ready: new Promise<void>((resolve, reject) => {
        markReady = resolve;
        failReady = reject;
      }),
    };
    // A rejection nobody awaits yet (the worker died before a call) must not crash the executor.
    running.ready.catch(() => undefined);
    const readyTimer = setTimeout(() => {
      failReady(new Error(`js_eval worker did not start within ${READY_TIMEOUT_MS} ms`));
      this.kill();
    }, READY_TIMEOUT_MS);

    const fail = (why: string) => {
      process.stderr.write(`js_eval worker: ${why}\n`);
      if (this.running === running) this.kill();
    };
    const splitter = new LineSplitter(
      MAX_MESSAGE_BYTES,
      (line) => {
        let message: WorkerMessage;
        try {
          message = WorkerMessage.parse(JSON.parse(line));
        } catch (error) {
          fail(`invalid message from worker: ${(error as Error).message}`);
          return;
        }
        if (message.type === 'ready') {
          clearTimeout(readyTimer);
          markReady();
          return;
        }
        if (message.type === 'unavailable') {
          clearTimeout(readyTimer);
          this.unavailable = describeUnavailable(message);
          failReady(new Error(this.unavailable));
          return;
        }
        const pending = running.pending;
        if (!pending || pending.id !== message.id) return; // Late output of a call already given up on.
        if (message.type === 'log') pending.onLog(message.level, message.text);
        else pending.settle(reply(message));
      },
      (bytes) => fail(`worker sent a ${bytes}-byte message`),
    );
    child.stdout!.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => {
      running.stderr = (running.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    // Writes to a worker that just died fail with EPIPE; the exit handler reports it.
    child.stdin!.on('error', () => undefined);
    child.on('error', (error) => {
      // A failed spawn has no 'exit'; forget this worker so the next call tries afresh.
      if (this.running === running) this.running = undefined;
      failReady(new Error(`could not start the js_eval worker: ${error.message}`));
    });
    child.on('exit', (code, signal) => {
      clearTimeout(readyTimer);
      if (this.running === running) this.running = undefined;
      const how = signal ? `signal ${signal}` : `exit code ${code}`;
      const stderr = running.stderr.trim();
      const detail = `the js_eval worker exited (${how})${stderr ? `: ${stderr}` : ''}`;
      failReady(new Error(detail));
      // V8 ends the process when its heap cannot grow under the worker's memory cap.
      const status = OUT_OF_MEMORY.test(stderr) ? 'memory' : 'crashed';
      if (running.pending) running.pending.settle({ status, text: detail, logsDropped: 0, reset: true });
      else if (!running.killed) this.lostState = true;
    });
    this.running = running;
    return running;
  }

  private kill(): void {
    const running = this.running;
    this.running = undefined;
    if (!running) return;
    running.killed = true;
    running.child.kill('SIGKILL');
  }
}

function unavailableReply(text: string): EvalReply {
  return { status: 'unavailable', text, logsDropped: 0, reset: false };
}

function reply(message: EvalResultMessage): EvalReply {
  return {
    status: message.status,
    text: message.text,
    logsDropped: message.logsDropped,
    reset: message.reset,
  };
}
