import { spawnSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { ensurePlanFile, planFilePath } from '../../agents/plan-file.js';
import { resolveWorkspace } from '../open-executor.js';
import { type AgentRunFlags, runAgent } from '../run-agent.js';
import { UsageError } from '../usage-error.js';

export interface PlanCommandOptions extends AgentRunFlags {
  /** Open the plan in $EDITOR instead of running an agent. */
  edit: boolean;
}

const PLANNING_PROMPT = `# Planning mode
You are planning, not implementing. Investigate the code with the read tools (and the shell, for commands that only read), then write a plan for the task to .skate/plan.md with write_file. The sandbox keeps everything else read-only: other writes, edits, builds that write and git commands that change the repository all fail, so do not try them.
- When a decision is the user's (a requirement, a trade-off), ask with ask_user; if nobody can answer, choose and record the assumption in the plan.
- For a large codebase, explore separate areas in parallel with spawn_agent (its sub-agents only read).
- The plan is for another agent that starts with a fresh context: make it self-contained. Cover the goal, the relevant files and facts you found, the changes step by step, how to test them, and the risks and open questions.
- Write the whole plan in one write_file call (rewrite it whole to revise it), then reply with a short summary.`;

const CHILD_CONTEXT =
  'You are helping a planning session: investigate and report what you find. You cannot change any file.';

/**
 * `skate plan "task"`: an agent under the shipped `plan` policy, which the
 * kernel enforces (everything read-only but `.skate/plan.md`, no network).
 * `skate plan --edit` opens the plan in $EDITOR.
 */
export async function planCommand(options: PlanCommandOptions): Promise<number> {
  if (options.edit) return editPlan(options.workspace);
  if (options.executor) {
    throw new UsageError(
      'skate plan starts its own executor under the plan policy; it cannot use --executor',
    );
  }
  return runAgent({
    ...options,
    policyOverride: 'plan',
    promptHint: 'give the task: skate plan "task" (or on stdin)',
    systemPromptAddition: PLANNING_PROMPT,
    alwaysOfferAskUser: true,
    subagentSettings: { readOnly: true, context: CHILD_CONTEXT },
    // The sandbox binds the plan file itself, so it must exist before the executor starts.
    prepareWorkspace: async (workspace) => {
      await ensurePlanFile(workspace).catch((error: Error) => {
        throw new UsageError(`cannot prepare the plan file: ${error.message}`);
      });
    },
    afterRun: async ({ workspace }) => {
      const file = planFilePath(workspace);
      const size = (await stat(file).catch(() => undefined))?.size ?? 0;
      process.stderr.write(
        size > 0
          ? `skate: plan: ${file}\nskate: review it with \`skate plan --edit\`, then run it with \`skate execute\`\n`
          : `skate: no plan was written (${file} is empty)\n`,
      );
    },
  });
}

/** Opens the plan in $EDITOR (or vi) with the terminal handed over; creates it empty if missing. */
async function editPlan(workspaceDir: string): Promise<number> {
  const workspace = await resolveWorkspace(workspaceDir);
  const file = await ensurePlanFile(workspace).catch((error: Error) => {
    throw new UsageError(`cannot open the plan: ${error.message}`);
  });
  const editor = process.env.EDITOR?.trim() || 'vi';
  // Through sh, as git does: EDITOR may carry arguments ("code --wait").
  const run = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit' });
  if (run.error) throw new UsageError(`cannot start the editor ${editor}: ${run.error.message}`);
  return run.status ?? 1;
}
