import * as z from 'zod';
import { defineTool, type Tool, type ToolOutcome } from '../define-tool.js';
import { describeUnavailable, findIsolatedVm } from '../js-eval/isolated-vm-loader.js';
import { type EvalReply, JsEvalWorker } from '../js-eval/js-eval-worker.js';
import type { LogLevel } from '../js-eval/protocol.js';
import { toolDescription } from '../tool-description.js';

const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 30_000;
/** The isolate's heap never exceeds this, whatever the sandbox allows: a scratch REPL needs little. */
const MAX_MEMORY_MIB = 128;
/** isolated-vm's floor. */
const MIN_MEMORY_MIB = 8;
/** Console output or value carried back per call, whatever the output limit: well inside a worker message. */
const MAX_PART_BYTES = 1024 * 1024;

const JsEvalInput = z.object({
  code: z.string().min(1).describe('JavaScript to run; the value of its last expression is returned.'),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe(`Time limit in milliseconds. Default ${DEFAULT_TIMEOUT_MS}, maximum ${MAX_TIMEOUT_MS}.`),
});

/**
 * Builds a js_eval tool with its own worker process, started on first use and
 * killed by `dispose()`. A factory, not a module value, so every executor
 * (and sub-agent) gets its own worker and its own REPL state. Without an
 * isolated-vm build for this Node the tool is listed as unavailable and every
 * call answers why; the executor serves its other tools as usual.
 */
export function createJsEvalTool(): Tool<typeof JsEvalInput> {
  const runtime = findIsolatedVm();
  const worker = runtime.status === 'available' ? new JsEvalWorker(runtime.build) : undefined;
  const unavailable = runtime.status === 'unavailable' ? describeUnavailable(runtime) : undefined;
  return defineTool({
    name: 'js_eval',
    effect: 'read',
    streamsOutput: true,
    description: toolDescription('js_eval'),
    input: JsEvalInput,
    ...(unavailable && { unavailable }),
    async run(input, ctx) {
      if (!worker) return { output: `${UNAVAILABLE} ${unavailable}`, code: 'unavailable' };
      const started = performance.now();
      const logs: string[] = [];
      const timeoutMs = input.timeout_ms ?? DEFAULT_TIMEOUT_MS;
      const memoryMiB = Math.max(MIN_MEMORY_MIB, Math.min(ctx.policy.limits.memoryMiB, MAX_MEMORY_MIB));
      const outputBytes = ctx.policy.limits.outputBytes;
      const reply = await worker.evaluate({
        code: input.code,
        timeoutMs,
        memoryMiB,
        maxLogBytes: Math.min(Math.floor(outputBytes / 2), MAX_PART_BYTES),
        maxValueChars: Math.min(outputBytes, MAX_PART_BYTES),
        cwd: ctx.workspace,
        signal: ctx.signal,
        onLog: (level, text) => {
          logs.push(logLine(level, text));
          const stream = level === 'warn' || level === 'error' ? 'stderr' : 'stdout';
          for (const line of text.split('\n')) ctx.emit(stream, line);
        },
      });
      return outcome(reply, logs, memoryMiB, Math.round(performance.now() - started));
    },
    dispose: () => worker?.dispose(),
  });
}

function logLine(level: LogLevel, text: string): string {
  return level === 'warn' || level === 'error' ? `[${level}] ${text}` : text;
}

const UNAVAILABLE = 'js_eval is unavailable on this machine:';
const GONE = 'variables and functions from earlier calls are gone';
const RESET_NOTE = `the JavaScript context was reset: ${GONE}`;

function outcome(reply: EvalReply, logs: string[], memoryMiB: number, durationMs: number): ToolOutcome {
  const lines = [...logs];
  if (reply.logsDropped > 0) lines.push(`[${reply.logsDropped} console lines dropped: output limit]`);
  let code: ToolOutcome['code'];
  switch (reply.status) {
    case 'ok':
      lines.push(logs.length > 0 ? `=> ${reply.text}` : reply.text);
      break;
    case 'error':
      code = 'failed';
      lines.push(reply.text);
      // A WebAssembly memory or a buffer the cap refused: the code can catch it, so nothing was reset.
      if (ALLOCATION_FAILED.test(reply.text)) lines.push(`[${memoryNote(memoryMiB)}]`);
      break;
    case 'timeout':
      code = 'timeout';
      lines.push(`[stopped: ${reply.text}; the limit is timeout_ms, at most ${MAX_TIMEOUT_MS}]`);
      break;
    case 'memory':
      code = 'failed';
      // Says the reset itself, so the generic note below is left out.
      lines.push(`[js_eval ran out of memory (limit ${memoryMiB} MiB); the session was reset: ${GONE}]`);
      break;
    case 'cancelled':
      code = 'cancelled';
      lines.push('[cancelled]');
      break;
    case 'crashed':
      code = 'failed';
      lines.push(`[${reply.text}]`);
      break;
    case 'unavailable':
      code = 'unavailable';
      lines.push(`${UNAVAILABLE} ${reply.text}`);
      break;
  }
  if (reply.reset && reply.status !== 'memory') lines.push(`[${RESET_NOTE}]`);
  return {
    output: lines.join('\n'),
    ...(code && { code }),
    display: { type: 'eval', durationMs, logs: logs.length },
  };
}

/** How V8 words an allocation the memory cap refused. */
const ALLOCATION_FAILED =
  /could not allocate memory|Array buffer allocation failed|Unable to grow instance memory|Out of memory/i;

function memoryNote(memoryMiB: number): string {
  return `js_eval's memory limit is ${memoryMiB} MiB, for the heap, ArrayBuffers and WebAssembly memory together`;
}
