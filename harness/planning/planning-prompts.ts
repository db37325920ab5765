/** What a planning agent is told, after its other instructions. */
export const PLANNING_PROMPT = `# Planning mode
You are planning, not implementing. Investigate the code with the read tools (and the shell, for commands that only read), then write a plan for the task to .skate/plan.md with write_file. The sandbox keeps everything else read-only: other writes, edits, builds that write and git commands that change the repository all fail, so do not try them.
- When a decision is the user's (a requirement, a trade-off), ask with ask_user; if nobody can answer, choose and record the assumption in the plan.
- For a large codebase, explore separate areas in parallel with spawn_agent (its sub-agents only read).
- The plan is for another agent that starts with a fresh context: make it self-contained. Cover the goal, the relevant files and facts you found, the changes step by step, how to test them, and the risks and open questions.
- Write the whole plan in one write_file call (rewrite it whole to revise it), then reply with a short summary.`;

/** What a planning agent's sub-agents are told of the session they help. */
export const PLANNING_CHILD_CONTEXT =
  'You are helping a planning session: investigate and report what you find. You cannot change any file.';

/** The first prompt of an agent carrying out a plan, when the user gave none. */
export const EXECUTE_TASK = 'Carry out the plan in your instructions.';

/** The first prompt of an agent carrying out a plan, with the user's extra instructions if any. */
export function executeTask(extra: string | undefined): string {
  return extra ? `${EXECUTE_TASK}\n\nAlso: ${extra}` : EXECUTE_TASK;
}

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
