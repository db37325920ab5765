import path from 'node:path';
import { parseArgs } from 'node:util';
import { planFilePath } from '../../planning/plan-file.js';
import { executeTask } from '../../planning/planning-prompts.js';
import { readPlan } from '../../planning/read-plan.js';
import { readPolicyFor, resolveWorkspace } from '../../runtime/start-executor.js';
import { executorSettingsFrom, modelFrom, runSettingsFrom } from '../agent-settings-from-flags.js';
import { AGENT_OPTIONS, agentFlags, type CommandMain, parsed } from '../cli-flags.js';
import { headlessAgent } from '../headless-agent.js';
import { readStdin } from '../read-stdin.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

const OPTIONS = { ...AGENT_OPTIONS, plan: { type: 'string' } } as const;

/**
 * `skate execute [--plan FILE] ["extra instructions"]`: a fresh agent (the
 * runtime's `execute` activity, under `execute` unless --policy says
 * otherwise) whose system prompt carries the plan, not the planning conversation.
 */
export const run: CommandMain = async (args) => {
  const { values, positionals } = parsed(() => parseArgs({ args, options: OPTIONS, allowPositionals: true }));
  if (values.help) return help();
  if (positionals.length > 1) {
    throw new UsageError(`unexpected argument: ${positionals[1]} (quote the instructions)`);
  }
  const flags = await agentFlags(values);
  if (!values.plan && flags.executor) throw new UsageError('with --executor, name the plan with --plan FILE');
  const workspace = await resolveWorkspace(flags.workspace);
  const planFile = values.plan ? path.resolve(values.plan) : planFilePath(workspace);
  // Read as the agent carrying it out may read: a plan.md leading to ~/.ssh/id_rsa is refused.
  const read = await readPlan(planFile, {
    policy: await readPolicyFor(executorSettingsFrom(flags), workspace),
    within: values.plan ? undefined : workspace,
  });
  if (!read.ok) throw new UsageError(read.message);
  const extra = positionals[0];
  // As before the runtime: instructions on stdin are the whole prompt, not an addition to the default task.
  const piped =
    extra === undefined && !process.stdin.isTTY ? (await readStdin()).trim() || undefined : undefined;
  return headlessAgent({
    settings: {
      ...runSettingsFrom(flags, modelFrom(flags, 'set ANTHROPIC_API_KEY to run an agent')),
      activity: { kind: 'execute', plan: read.plan, planFile },
    },
    prompt: piped ?? executeTask(extra),
    outputFormat: flags.outputFormat,
    answers: flags.answers,
    outputSchema: flags.outputSchema,
  });
};
