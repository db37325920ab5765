import type { AnyTool } from '../../executor/define-tool.js';
import { createExecutor } from '../../executor/executor.js';
import { DEFAULT_MAX_FRAME_BYTES } from '../../harness/executor-client/executor-client.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { OutputLine, ToolResult } from '../../shared/tool.js';
import { trpc } from '../../shared/trpc.js';

export interface RunToolOptions {
  signal?: AbortSignal;
  /** Collects the call's streamed output lines. */
  lines?: OutputLine[];
  /** The ripgrep binary grep and glob use; without it they search in JavaScript. */
  ripgrep?: string | undefined;
}

/**
 * Runs one tool in-process through an executor built exactly as the executor
 * process builds its own (`createExecutor`: registry, runner, path guard,
 * output caps, router), called through tRPC's server-side caller: schema
 * checks, denials and output streaming as over the wire, without a process or
 * channel.
 */
export async function runTool(
  tool: AnyTool,
  policy: ResolvedPolicy,
  input: unknown,
  options: RunToolOptions = {},
): Promise<ToolResult> {
  const executor = createExecutor(
    {
      type: 'boot',
      protocol: 1,
      policy,
      enforcement: 'none',
      resourceLimits: 'none',
      commandWrapper: [],
      diagnosticTools: false,
      maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
    },
    () => {},
    { tools: [tool], ripgrep: options.ripgrep },
  );
  const caller = trpc.createCallerFactory(executor.router)(
    {},
    { ...(options.signal && { signal: options.signal }) },
  );
  const callId = `test-${Math.random().toString(36).slice(2)}`;
  const collecting = options.lines
    ? (async () => {
        for await (const line of await caller.toolOutput({ callId })) options.lines!.push(line);
      })()
    : undefined;
  const result = await caller.callTool({ callId, name: tool.name, input });
  await collecting;
  return result;
}
