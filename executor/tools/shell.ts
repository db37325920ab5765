import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as z from 'zod';
import { defineTool, ToolFailure, type ToolOutcome } from '../define-tool.js';
import type { PathGuard } from '../path-guard.js';
import { type CommandResult, runCommand } from '../process/run-command.js';
import { toolDescription } from '../tool-description.js';

/** Room kept under the output limit for the status line, so the runner's cap never cuts it off. */
const STATUS_RESERVE_BYTES = 400;
/** A warm-up command that takes longer than this is stuck; it is only a no-op. */
const WARM_TIMEOUT_MS = 10_000;

export const shellTool = defineTool({
  name: 'shell',
  effect: 'execute',
  streamsOutput: true,
  description: toolDescription('shell'),
  input: z.object({
    command: z.string().min(1).describe('The bash command line to run.'),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe('Directory to run in, relative to the workspace or absolute. Default: the workspace.'),
    timeout_seconds: z
      .number()
      .positive()
      .optional()
      .describe("Wall-clock limit in seconds. Default and maximum: the policy's command timeout."),
    description: z
      .string()
      .max(200)
      .optional()
      .describe('A few words on what the command does, shown to the user.'),
  }),
  async run(input, ctx) {
    const cwd = input.cwd === undefined ? ctx.workspace : await directory(input.cwd, ctx.paths);
    const limit = ctx.policy.limits.commandTimeoutSeconds;
    const timeoutSeconds = Math.min(input.timeout_seconds ?? limit, limit);
    const result = await runCommand({
      argv: [shellPath(), '-c', input.command],
      wrapper: ctx.commandWrapper,
      cwd,
      // The executor's own environment was filtered by policy before it started.
      env: process.env,
      timeoutMs: Math.round(timeoutSeconds * 1000),
      signal: ctx.signal,
      outputCapBytes: Math.max(1024, ctx.policy.limits.outputBytes - STATUS_RESERVE_BYTES),
      onLine: (stream, text) => ctx.emit(stream, text),
    });
    return outcome(input.command, result, timeoutSeconds);
  },
  async warm(ctx) {
    // A process's first spawn costs several ms more than later ones (Node sets up its child
    // process and pipe machinery), and so does its first output: paid here, by a command that
    // prints an empty line under the same wrapper, not by the first command.
    await runCommand({
      argv: [shellPath(), '-c', 'echo'],
      wrapper: ctx.commandWrapper,
      cwd: ctx.workspace,
      env: process.env,
      timeoutMs: WARM_TIMEOUT_MS,
      signal: ctx.signal,
      outputCapBytes: 1024,
    });
  },
});

async function directory(input: string, paths: PathGuard): Promise<string> {
  const real = await paths.forRead(input);
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(real)).isDirectory();
  } catch {
    throw new ToolFailure('not_found', `cwd ${input} does not exist`);
  }
  if (!isDirectory) throw new ToolFailure('invalid_input', `cwd ${input} is not a directory`);
  return real;
}

/** bash where it exists; a minimal system may only have sh. */
function shellPath(): string {
  return existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
}

function outcome(command: string, result: CommandResult, timeoutSeconds: number): ToolOutcome {
  const status = result.timedOut
    ? `[killed: timed out after ${timeoutSeconds} s]`
    : result.cancelled
      ? '[killed: cancelled]'
      : result.exitCode === null
        ? `[killed by signal ${result.signal}]`
        : `[exit code ${result.exitCode}]`;
  const notes = result.killedBackground
    ? '\n[background processes still holding the output were stopped]'
    : '';
  const body =
    result.output.length === 0 || result.output.endsWith('\n') ? result.output : `${result.output}\n`;
  const code = result.timedOut
    ? 'timeout'
    : result.cancelled
      ? 'cancelled'
      : result.exitCode === 0
        ? undefined
        : 'failed';
  return {
    output: `${body}${status}${notes}`,
    ...(code && { code }),
    display: {
      type: 'command',
      command,
      exitCode: result.exitCode,
      signal: result.signal,
      durationMs: result.durationMs,
      timedOut: result.timedOut,
      truncated: result.truncated,
    },
  };
}
