import { elide } from '../shared/elide.js';
import type { ResolvedPolicy } from '../shared/policy.js';
import type { ToolCallRequest, ToolErrorCode, ToolResult } from '../shared/tool.js';
import { type ToolContext, ToolFailure, type ToolOutcome } from './define-tool.js';
import type { OutputHub } from './output-hub.js';
import type { PathGuard } from './path-guard.js';
import type { ToolRegistry } from './tool-registry.js';

export interface ToolRunnerOptions {
  registry: ToolRegistry;
  policy: ResolvedPolicy;
  paths: PathGuard;
  outputs: OutputHub;
  /** Largest tool input accepted, as JSON bytes. */
  maxInputBytes: number;
  /** Argv prefix for commands tools start. */
  commandWrapper?: readonly string[];
  /** The ripgrep binary for grep and glob; absent, they search in JavaScript. */
  ripgrep?: string | undefined;
}

/** Shortens text to `limit` bytes of UTF-8 with a notice saying what was cut. */
export function capOutput(text: string, limit: number): string {
  if (Buffer.byteLength(text) <= limit) return text;
  const cut = Buffer.from(text)
    .subarray(0, limit)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const total = Buffer.byteLength(text);
  return `${cut}\n[output truncated: showed ${Buffer.byteLength(cut)} of ${total} bytes; narrow the request to see the rest]`;
}

/**
 * An error's text is advice, not data: past this it is quoting an input, and is elided. Room for
 * the longest advice a tool gives (edit_file's near match quotes the lines the model sent).
 */
const MAX_ERROR_CHARS = 16 * 1024;
/** What an error quotes of one input value (a path, a tool name, an error's message) before eliding it. */
const MAX_QUOTED_CHARS = 1024;

/** Every error result, whatever it quotes of the input, is bounded here (`elide`). */
function failure(code: ToolErrorCode, output: string): ToolResult {
  return { output: elide(output, MAX_ERROR_CHARS), isError: true, code };
}

/**
 * Runs tool calls: lookup, size and schema checks, cancellation, output caps.
 * Every failure, including a throw inside a tool, becomes a result; abort
 * handling lives here once rather than in each tool.
 */
export class ToolRunner {
  private readonly running = new Map<string, { signal: AbortSignal; abort(reason: unknown): void }>();
  /** Aborts warm-ups in progress when the executor stops. */
  private readonly warming = new AbortController();

  constructor(private readonly options: ToolRunnerOptions) {}

  get runningCount(): number {
    return this.running.size;
  }

  async call(request: ToolCallRequest, signal: AbortSignal | undefined): Promise<ToolResult> {
    const { registry, policy, outputs, maxInputBytes } = this.options;
    let tool: Awaited<ReturnType<ToolRegistry['load']>>;
    try {
      tool = await registry.load(request.name);
    } catch (error) {
      return failure('failed', `${request.name} could not be loaded: ${describe(error)}`);
    }
    if (!tool) {
      return failure(
        'unknown_tool',
        `unknown tool "${elide(request.name, MAX_QUOTED_CHARS)}"; this executor offers: ${registry.names().join(', ')}`,
      );
    }
    const inputBytes = Buffer.byteLength(JSON.stringify(request.input ?? null));
    if (inputBytes > maxInputBytes) {
      return failure(
        'input_too_large',
        `input to ${tool.name} is ${inputBytes} bytes; the limit is ${maxInputBytes}. Split the work into smaller calls.`,
      );
    }
    const parsed = tool.input.safeParse(request.input ?? {});
    if (!parsed.success) {
      // zod is loaded by the tool's module already; imported here lazily only to keep it out of the executor's start.
      const { prettifyZodError } = await import('../shared/zod-errors.js');
      return failure('invalid_input', `invalid input for ${tool.name}:\n${prettifyZodError(parsed.error)}`);
    }
    if (this.running.has(request.callId)) {
      return failure(
        'conflict',
        `a call with id ${elide(request.callId, MAX_QUOTED_CHARS)} is already running`,
      );
    }

    // The RPC layer gives every request its own signal; reuse it rather than linking a new
    // controller (an AbortController costs ~2 µs, a tenth of a whole call).
    const own = signal ? undefined : new AbortController();
    const callSignal = signal ?? own!.signal;
    this.running.set(request.callId, { signal: callSignal, abort: (reason) => own?.abort(reason) });
    try {
      const outcome: ToolOutcome = await tool.run(
        parsed.data,
        this.context(request.callId, callSignal, outputs.open(request.callId)),
      );
      if (callSignal.aborted && outcome.code === undefined) {
        return failure('cancelled', `${tool.name} was cancelled`);
      }
      return {
        output: capOutput(outcome.output, policy.limits.outputBytes),
        isError: outcome.isError ?? outcome.code !== undefined,
        ...(outcome.code && { code: outcome.code }),
        ...(outcome.display && { display: outcome.display }),
      };
    } catch (error) {
      if (error instanceof ToolFailure) return failure(error.code, error.message);
      if (callSignal.aborted) return failure('cancelled', `${tool.name} was cancelled`);
      return failure('failed', `${tool.name} failed: ${describe(error)}`);
    } finally {
      this.running.delete(request.callId);
      outputs.close(request.callId);
    }
  }

  /**
   * Loads a tool and runs its `warm`, so its first call costs what later ones do. Never fails:
   * a warm-up that goes wrong only leaves that cost to the first call.
   */
  async warm(name: string): Promise<void> {
    // A stopped executor loads nothing more: a warm-up scheduled before the stop is skipped.
    if (this.warming.signal.aborted) return;
    try {
      const tool = await this.options.registry.load(name);
      if (!tool || this.warming.signal.aborted) return;
      // zod builds a schema's parser on its first use (3 ms for shell's here): any parse builds it.
      tool.input.safeParse({});
      await tool.warm?.(this.context(`warm-${name}`, this.warming.signal, () => undefined));
    } catch {
      // Nothing to report: the call it was for has not been made.
    }
  }

  /**
   * Cancels calls that have no RPC request behind them (in-process callers), and warm-ups.
   * Calls made over RPC are cancelled by the RPC server, which owns their signals.
   */
  cancelAll(reason: string): void {
    this.warming.abort(new Error(reason));
    for (const call of this.running.values()) call.abort(new Error(reason));
  }

  private context(callId: string, signal: AbortSignal, emit: ToolContext['emit']): ToolContext {
    const { policy, paths } = this.options;
    return {
      callId,
      workspace: policy.workspace,
      policy,
      signal,
      paths,
      emit,
      commandWrapper: this.options.commandWrapper ?? [],
      ripgrep: this.options.ripgrep,
    };
  }
}

/**
 * A thrown error as one line of advice: its code once (Node's fs errors already begin with it:
 * `ENAMETOOLONG: name too long, open '…'`), and the path or value it quotes elided.
 */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    const text = code && !error.message.startsWith(`${code}:`) ? `${code}: ${error.message}` : error.message;
    return elideQuoted(text);
  }
  return elideQuoted(String(error));
}

/** Elides each quoted stretch ('…', as Node quotes paths), and then the whole. */
function elideQuoted(text: string): string {
  const quoted = text.replace(/'([^']*)'/g, (_all, inner: string) => `'${elide(inner, MAX_QUOTED_CHARS)}'`);
  return elide(quoted, 2 * MAX_QUOTED_CHARS);
}
