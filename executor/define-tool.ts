import type * as z from 'zod';
import type { ResolvedPolicy } from '../shared/policy.js';
import type { OutputLine, ToolDisplay, ToolEffect, ToolErrorCode } from '../shared/tool.js';
import type { PathGuard } from './path-guard.js';

// Tools import it from here with defineTool; path-guard imports tool-failure.ts itself (no cycle).
export { ToolFailure } from './tool-failure.js';

/** Everything a tool may use. Tools get their world only through this, never through globals. */
export interface ToolContext {
  readonly callId: string;
  readonly workspace: string;
  readonly policy: ResolvedPolicy;
  /** Aborted when the call is cancelled or its executor shuts down. */
  readonly signal: AbortSignal;
  /** Policy-checked path resolution; a denial throws a `ToolFailure` the runner turns into a result. */
  readonly paths: PathGuard;
  /** Streams one line of output to whoever watches this call. */
  emit(stream: OutputLine['stream'], text: string): void;
  /** Argv prefix for every command a tool starts (see `ExecutorBoot.commandWrapper`); may be empty. */
  readonly commandWrapper: readonly string[];
  /** The ripgrep binary grep and glob run (under `commandWrapper`); absent, they search in JavaScript. */
  readonly ripgrep?: string | undefined;
}

/** What `run` returns; the runner fills in `isError: false` when it is absent. */
export interface ToolOutcome {
  output: string;
  isError?: boolean;
  code?: ToolErrorCode;
  display?: ToolDisplay;
}

/** A tool: one per file, built with `defineTool`. */
export interface Tool<Input extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  /** Model-facing: what the tool does, when to use it, what it returns. */
  readonly description: string;
  readonly effect: ToolEffect;
  /** The tool emits output lines while it runs (a command's stdout, say). */
  readonly streamsOutput?: boolean;
  /** Why the tool cannot run on this machine and how to fix it; its calls return an `unavailable` error. */
  readonly unavailable?: string;
  readonly input: Input;
  run(input: z.infer<Input>, ctx: ToolContext): Promise<ToolOutcome>;
  /**
   * Does ahead, once, while the executor is idle, the work its first call would otherwise pay
   * (shell: the process's first spawn). Its failure is ignored: the first call then pays.
   */
  warm?(ctx: ToolContext): Promise<void>;
  /** Releases what the tool keeps between calls (a worker process, say) when its executor stops. */
  dispose?(): Promise<void> | void;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every input type.
export type AnyTool = Tool<any>;

/** Declares a tool; the only way tools are made, so every tool has the same shape. */
export function defineTool<Input extends z.ZodObject>(tool: Tool<Input>): Tool<Input> {
  return tool;
}
