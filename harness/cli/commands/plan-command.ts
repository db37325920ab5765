import { spawnSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ensurePlanFile, planFilePath } from '../../planning/plan-file.js';
import { resolveWorkspace } from '../../runtime/start-executor.js';
import { modelFrom, runSettingsFrom } from '../agent-settings-from-flags.js';
import { AGENT_OPTIONS, agentFlags, type CommandMain, parsed } from '../cli-flags.js';
import { headlessAgent } from '../headless-agent.js';
import { readStdin } from '../read-stdin.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

const OPTIONS = { ...AGENT_OPTIONS, edit: { type: 'boolean', default: false } } as const;

/**
 * `skate plan "task"`: a planning agent (the runtime's `plan` activity: the
 * shipped `plan` policy, which the kernel enforces — everything read-only but
 * `.skate/plan.md`, no network). `skate plan --edit` opens the plan in $EDITOR.
 */
export const run: CommandMain = async (args) => {
  const { values, positionals } = parsed(() => parseArgs({ args, options: OPTIONS, allowPositionals: true }));
  if (values.help) return help();
  if (args.some((arg) => arg === '--policy' || arg.startsWith('--policy='))) {
    throw new UsageError('skate plan always runs under the plan policy; drop --policy');
  }
  if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]} (quote the task)`);
  const flags = await agentFlags(values);
  if (values.edit) return editPlan(flags.workspace);
  if (flags.executor) {
    throw new UsageError(
      'skate plan starts its own executor under the plan policy; it cannot use --executor',
    );
  }
  let prompt = positionals[0];
  if (prompt === undefined && !process.stdin.isTTY) prompt = (await readStdin()).trim() || undefined;
  if (!prompt) throw new UsageError('give the task: skate plan "task" (or on stdin)');
  return headlessAgent({
    settings: {
      ...runSettingsFrom(flags, modelFrom(flags, 'set ANTHROPIC_API_KEY to run an agent')),
      activity: { kind: 'plan' },
    },
    prompt,
    outputFormat: flags.outputFormat,
    answers: flags.answers,
    outputSchema: flags.outputSchema,
    verbose: flags.verbose,
    afterRun: async (session) => {
      const file = planFilePath(session.workspace);
      const size = (await stat(file).catch(() => undefined))?.size ?? 0;
      process.stderr.write(
        size > 0
          ? `skate: plan: ${file}\nskate: review it with \`skate plan --edit\`, then run it with \`skate execute\`\n`
          : `skate: no plan was written (${file} is empty)\n`,
      );
      return undefined;
    },
  });
};

/** Opens the plan in $EDITOR (or vi) with the terminal handed over; creates it empty if missing. */
async function editPlan(workspaceDir: string): Promise<number> {
  const workspace = await resolveWorkspace(workspaceDir);
  const file = await ensurePlanFile(workspace).catch((error: Error) => {
    throw new UsageError(`cannot open the plan: ${error.message}`);
  });
  const editor = process.env.EDITOR?.trim() || 'vi';
  // Through sh, as git does: EDITOR may carry arguments ("code --wait").
  const editing = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit' });
  if (editing.error) throw new UsageError(`cannot start the editor ${editor}: ${editing.error.message}`);
  return editing.status ?? 1;
}
