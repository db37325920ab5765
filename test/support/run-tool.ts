import type { AnyTool } from '../../executor/define-tool.js';
import { OutputHub } from '../../executor/output-hub.js';
import { PathGuard } from '../../executor/path-guard.js';
import { ToolRegistry } from '../../executor/tool-registry.js';
import { ToolRunner } from '../../executor/tool-runner.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { OutputLine, ToolResult } from '../../shared/tool.js';

export interface RunToolOptions {
  signal?: AbortSignal;
  /** Collects the call's streamed output lines. */
  lines?: OutputLine[];
  /** The ripgrep binary grep and glob use; without it they search in JavaScript. */
  ripgrep?: string | undefined;
}

/**
 * Runs one tool in-process through the real runner (schema checks, denials,
 * output caps), as an executor would, without a process or channel.
 */
export async function runTool(
  tool: AnyTool,
  policy: ResolvedPolicy,
  input: unknown,
  options: RunToolOptions = {},
): Promise<ToolResult> {
  const outputs = new OutputHub();
  const runner = new ToolRunner({
    registry: new ToolRegistry([tool]),
    policy,
    paths: new PathGuard(policy),
    outputs,
    maxInputBytes: 8 * 1024 * 1024,
    ripgrep: options.ripgrep,
  });
  const callId = `test-${Math.random().toString(36).slice(2)}`;
  const collecting = options.lines
    ? (async () => {
        for await (const line of outputs.subscribe(callId, undefined)) options.lines!.push(line);
      })()
    : undefined;
  const result = await runner.call({ callId, name: tool.name, input }, options.signal);
  await collecting;
  return result;
}
