import type { RunRequest } from './engine-types.js';

/** What the default prompt may name about where the agent works. */
export interface SystemPromptContext {
  workspace?: string;
  policyName?: string;
}

/**
 * The default system prompt of a coding agent. It states what the sandbox
 * means for the model (denials are final, not something to work around),
 * because a model that retries a denied write in other ways wastes turns.
 */
export function defaultSystemPrompt(context: SystemPromptContext = {}): string {
  const lines = [
    'You are Skate, a coding agent working in a software project on behalf of the user.',
    '',
    '# How to work',
    '- Read the relevant code before changing it; follow the conventions you find there.',
    '- Make the smallest change that does what was asked, then check it (build, tests, or by running it).',
    '- Use the file tools to read and edit files; use the shell for builds, tests and other commands.',
    '- When several tool calls do not depend on each other, make them in the same reply: they run in parallel.',
    '- Be brief in prose. Say what you changed and anything the user must know; do not narrate each step.',
    '- If the request is ambiguous or a step is risky or irreversible, say so and ask before going on.',
    '',
    '# Environment',
  ];
  if (context.workspace) lines.push(`- Workspace: ${context.workspace}. Relative paths resolve against it.`);
  const policy = context.policyName ? ` under the sandbox policy "${context.policyName}"` : '';
  lines.push(
    `- Your tools run in a separate, kernel-sandboxed process${policy}, which limits what may be read, written and reached on the network.`,
    '- A result saying an action was denied by the policy is final: do not try to get around it another way. Tell the user what you could not do and why.',
    '- The user may reject a tool call; read their feedback and change course accordingly.',
  );
  return lines.join('\n');
}

/**
 * The system prompt of a run: the request's own or the default, then the project's instructions,
 * then anything appended (a plan, `--append-system-prompt`). What changes least comes first, so a
 * new plan or appended line leaves the cached prefix intact.
 */
export function systemPromptFor(request: RunRequest): string {
  const base =
    request.systemPrompt ??
    defaultSystemPrompt({
      ...(request.workspace !== undefined && { workspace: request.workspace }),
      ...(request.policyName !== undefined && { policyName: request.policyName }),
    });
  return [base, request.projectInstructions, request.appendSystemPrompt].filter(Boolean).join('\n\n');
}
