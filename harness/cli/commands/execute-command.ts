import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { planFilePath } from '../../agents/plan-file.js';
import { resolveWorkspace } from '../open-executor.js';
import { type AgentRunFlags, runAgent } from '../run-agent.js';
import { UsageError } from '../usage-error.js';

export interface ExecuteCommandOptions extends AgentRunFlags {
  /** The plan to carry out; default `<workspace>/.skate/plan.md`. */
  planFile?: string | undefined;
}

const DEFAULT_TASK = 'Carry out the plan in your instructions.';

/** The system prompt section that hands a plan over to a fresh agent. */
export function planHandoff(plan: string, file: string): string {
  return [
    '# The plan',
    `You are carrying out a plan written in an earlier planning session (${file}). You start with a fresh context: the plan is all you know of that session. Follow it step by step; where the code proves it wrong, adapt and say so in your final answer.`,
    '',
    '<plan>',
    plan.trim(),
    '</plan>',
  ].join('\n');
}

/**
 * `skate execute [--plan FILE] ["extra instructions"]`: a fresh agent (under
 * `execute` unless --policy says otherwise) whose system prompt carries the
 * plan, not the planning conversation.
 */
export async function executeCommand(options: ExecuteCommandOptions): Promise<number> {
  if (!options.planFile && options.executor) {
    throw new UsageError('with --executor, name the plan with --plan FILE');
  }
  const file = options.planFile
    ? path.resolve(options.planFile)
    : planFilePath(await resolveWorkspace(options.workspace));
  let plan: string;
  try {
    plan = await readFile(file, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new UsageError(
      missing
        ? `no plan at ${file}: write one with \`skate plan "task"\`, or name one with --plan FILE`
        : `cannot read the plan ${file}: ${(error as Error).message}`,
    );
  }
  if (plan.trim() === '')
    throw new UsageError(`the plan at ${file} is empty: write one with \`skate plan "task"\``);
  return runAgent({
    ...options,
    prompt: options.prompt ? `${DEFAULT_TASK}\n\nAlso: ${options.prompt}` : undefined,
    defaultPrompt: DEFAULT_TASK,
    systemPromptAddition: planHandoff(plan, file),
  });
}
