import type { ResolvedPolicy } from '../../shared/policy.js';
import { readWorkspaceFile } from '../workspace-files/read-workspace-file.js';

export type ReadPlan = { ok: true; plan: string } | { ok: false; message: string };

export interface ReadPlanOptions {
  /** The policy of the agent that will carry the plan out: the plan is read only as it may read. */
  policy: ResolvedPolicy;
  /** The workspace (real) for its own `.skate/plan.md`: what that leads to must stay inside it. */
  within?: string | undefined;
}

/** Every request carries the plan in its system prompt: a bigger file is a mistake, not a plan. */
const MAX_PLAN_BYTES = 256 * 1024;

/**
 * Reads a plan to carry out, as the agent carrying it out may read it (`readWorkspaceFile`): a
 * `.skate/plan.md` that leads to `~/.ssh/id_rsa` is refused, never put in the prompt. A missing,
 * refused or empty plan comes back as a message saying what to do.
 */
export async function readPlan(file: string, options: ReadPlanOptions): Promise<ReadPlan> {
  const read = await readWorkspaceFile(file, {
    policy: options.policy,
    within: options.within,
    maxBytes: MAX_PLAN_BYTES,
    overflow: 'refuse',
  });
  if (read.status === 'missing') {
    return {
      ok: false,
      message: `no plan at ${file}: write one with \`skate plan "task"\`, or name one with --plan FILE`,
    };
  }
  if (read.status === 'refused') return { ok: false, message: `the plan ${file} ${read.message}` };
  const plan = read.data.toString('utf8');
  if (plan.trim() === '')
    return { ok: false, message: `the plan at ${file} is empty: write one with \`skate plan "task"\`` };
  return { ok: true, plan };
}
