import { writeSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type ivm from 'isolated-vm';
import { isolatePrelude, type SettleFunction } from './isolate-prelude.js';
import type { IsolatedVm } from './isolated-vm-loader.js';
import type { EvalRequest, EvalResultMessage, LogLevel } from './protocol.js';

/** Name the snippet carries in stack traces. */
const SNIPPET_FILE = 'snippet.js';

type Result = Omit<EvalResultMessage, 'type' | 'id'>;

interface Live {
  isolate: ivm.Isolate;
  context: ivm.Context;
  settle: ivm.Reference<SettleFunction>;
}

/** Where the current call's console output goes, with its byte budget. */
interface LogSink {
  send(level: LogLevel, text: string): void;
  left: number;
  dropped: number;
}

/**
 * One REPL: an isolate and a context that persist across evaluations, so
 * variables carry over. Thrown away after a timeout or out-of-memory, and
 * made anew on the next call.
 */
export class ReplSession {
  private live: Live | undefined;
  private sink: LogSink | undefined;

  /** `vm` is this Node's isolated-vm build, loaded by the worker; `memoryMiB` its isolates' heap limit. */
  constructor(
    private readonly vm: IsolatedVm,
    private readonly memoryMiB: number,
  ) {}

  /** Makes the isolate now rather than on the first evaluation. */
  async prepare(): Promise<void> {
    this.live ??= await this.create();
  }

  async evaluate(request: EvalRequest, send: (level: LogLevel, text: string) => void): Promise<Result> {
    let reset = false;
    const live = this.live ?? (await this.create());
    const sink: LogSink = { send, left: request.maxLogBytes, dropped: 0 };
    this.sink = sink;
    let expired = false;
    // The timeout is ours, not isolated-vm's: its timer starts a thread per call once the last one
    // has lapsed, and a thread's stack counts against the worker's data limit, so after code had
    // filled that limit the next call's timer aborted the worker. Disposing ends any run at once
    // (a loop, a promise that never settles), and a timeout resets the session either way.
    const backstop = setTimeout(() => {
      expired = true;
      this.discard();
    }, request.timeoutMs);
    const finish = async (status: Result['status'], text: string): Promise<Result> => {
      clearTimeout(backstop);
      // Console callbacks are delivered asynchronously; let the last ones land before the result.
      await nextTurn();
      this.sink = undefined;
      if (status === 'timeout' || status === 'memory') {
        this.discard();
        reset = true;
      }
      return { status, text, logsDropped: sink.dropped, reset };
    };

    let script: ivm.Script | undefined;
    let value: ivm.Reference<unknown> | undefined;
    try {
      script = await live.isolate.compileScript(request.code, { filename: SNIPPET_FILE });
      value = await script.run(live.context, { reference: true });
      const settled = await live.settle.apply(undefined, [value.derefInto(), request.maxValueChars], {
        result: { promise: true, copy: true },
      });
      if (expired) return await finish('timeout', timeoutText(request.timeoutMs));
      return await finish(settled.ok ? 'ok' : 'error', settled.ok ? settled.text : cleanStack(settled.text));
    } catch (error) {
      if (expired || isTimeout(error)) return await finish('timeout', timeoutText(request.timeoutMs));
      if (live.isolate.isDisposed) {
        return await finish('memory', `out of memory: the ${this.memoryMiB} MiB heap limit was reached`);
      }
      return await finish('error', describeThrown(error, request.maxValueChars));
    } finally {
      script?.release();
      value?.release();
    }
  }

  /** Drops the isolate and everything in it. */
  discard(): void {
    const live = this.live;
    this.live = undefined;
    if (live && !live.isolate.isDisposed) live.isolate.dispose();
  }

  private async create(): Promise<Live> {
    const isolate = new this.vm.Isolate({
      memoryLimit: this.memoryMiB,
      onCatastrophicError: (message) => {
        // isolated-vm's advice: V8 has lost control of the isolate; the only safe move is to exit.
        // At once: process.exit() waited forever here (seen after an out-of-memory in the isolate),
        // and the call then ended only at its timeout.
        writeSync(2, `js_eval worker: catastrophic isolate error: ${message}\n`);
        process.kill(process.pid, 'SIGKILL');
      },
    });
    const context = await isolate.createContext();
    // `ignored` callbacks do not block the isolate on the host; measured 8x faster than sync ones.
    const log = new this.vm.Callback((level: unknown, text: unknown) => this.log(level, text), {
      ignored: true,
    });
    const settle = (await context.evalClosure(`return (${isolatePrelude.toString()})($0);`, [log], {
      result: { reference: true },
    })) as ivm.Reference<SettleFunction>;
    this.live = { isolate, context, settle };
    return this.live;
  }

  private log(level: unknown, text: unknown): void {
    const sink = this.sink;
    if (!sink || typeof level !== 'string' || typeof text !== 'string') return;
    const bytes = Buffer.byteLength(text);
    if (bytes > sink.left) {
      sink.dropped++;
      sink.left = 0;
      return;
    }
    sink.left -= bytes;
    sink.send(level as LogLevel, text);
  }
}

function timeoutText(ms: number): string {
  return `timed out after ${ms} ms`;
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Script execution timed out.';
}

/** A host-side error from the isolate as the model should see it: message and the snippet's frames. */
function describeThrown(error: unknown, maxChars: number): string {
  // isolated-vm cannot copy a thrown non-Error object out of the isolate and says so in its own words.
  if (error instanceof Error && error.message.startsWith('An object was thrown from supplied code')) {
    return 'Uncaught exception: the code threw an object that is not an Error (throw an Error to see a message and stack)';
  }
  if (error instanceof Error)
    return cleanStack(error.stack ?? `${error.name}: ${error.message}`).slice(0, maxChars);
  if (typeof error === 'object' && error !== null) {
    try {
      return `Uncaught ${JSON.stringify(error)}`.slice(0, maxChars);
    } catch {
      // Not JSON-able (a cycle, a BigInt): fall through to String().
    }
  }
  return `Uncaught ${typeof error === 'string' ? JSON.stringify(error) : String(error)}`.slice(0, maxChars);
}

/** Keeps the message and the frames inside the snippet; drops isolated-vm's and the worker's own frames. */
function cleanStack(stack: string): string {
  const lines = stack.split('\n');
  const firstFrame = lines.findIndex((line) => /^\s+at /.test(line));
  if (firstFrame === -1) return stack;
  const frames = lines.slice(firstFrame).filter((line) => line.includes(SNIPPET_FILE));
  return [...lines.slice(0, firstFrame), ...frames].join('\n');
}
