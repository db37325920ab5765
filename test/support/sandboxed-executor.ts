import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { kernelLauncher } from '../../harness/sandbox/kernel-launcher.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { ToolResult } from '../../shared/tool.js';

/** A shell tool call's result with the exit code read back from its status line. */
export interface ShellRun {
  /** What the command printed, without the status line. */
  output: string;
  /** The exit code, or null when the command was killed (timeout, cancel, signal). */
  exitCode: number | null;
  result: ToolResult;
}

/** A real executor inside the real kernel sandbox, disposed (and waited for) with `await using`. */
export interface SandboxedExecutor extends AsyncDisposable {
  readonly client: ExecutorClient;
  /** Notes the sandbox made while being built, e.g. a write root it refused. */
  readonly notes: readonly string[];
  /** Warnings the sandbox gave, some only when it is released (after disposal). */
  readonly warnings: readonly string[];
  /** Runs a bash command line through the shell tool, exactly as a model would. */
  sh(command: string, input?: { timeout_seconds?: number; cwd?: string }): Promise<ShellRun>;
  tool(name: string, input: unknown): Promise<ToolResult>;
}

/** Starts an executor under `policy` with the kernel launcher (never a fallback). */
export async function sandboxedExecutor(policy: ResolvedPolicy): Promise<SandboxedExecutor> {
  const notes: string[] = [];
  const warnings: string[] = [];
  const client = await ExecutorClient.spawn({
    policy,
    launcher: kernelLauncher({
      onNote: (note) => notes.push(note),
      onWarning: (warning) => warnings.push(warning),
    }),
    diagnosticTools: true,
  });
  return {
    client,
    notes,
    warnings,
    async sh(command, input = {}) {
      const result = await client.callTool('shell', { command, ...input });
      return parseShell(result);
    },
    tool: (name, input) => client.callTool(name, input),
    async [Symbol.asyncDispose]() {
      await client.shutdown();
    },
  };
}

/** Splits the shell tool's output into what the command printed and its exit code. */
export function parseShell(result: ToolResult): ShellRun {
  // The status line ends the output, optionally followed by one note in brackets.
  const status = /(?:^|\n)\[(?:exit code (\d+)|killed[^\]]*)\](?:\n\[[^\]]*\])?$/.exec(result.output);
  return {
    output: status
      ? result.output.slice(0, status.index + (status[0].startsWith('\n') ? 1 : 0))
      : result.output,
    exitCode: status?.[1] !== undefined ? Number(status[1]) : null,
    result,
  };
}
