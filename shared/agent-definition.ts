import * as z from 'zod';

/**
 * A dispatch's token budget: `total` caps input (cached or not) plus output over the child's
 * whole run, `output_per_response` caps each model response (and becomes its `max_tokens`).
 */
export const AgentBudget = z
  .object({
    total: z.number().int().positive().optional(),
    output_per_response: z.number().int().positive().optional(),
  })
  .strict();
export type AgentBudget = z.infer<typeof AgentBudget>;

/**
 * Where a writing child writes: `none` (the parent's workspace, within its write roots) or
 * `worktree` (its own copy, the only root it may write; its changes come back as a diff).
 */
export const AgentIsolation = z.enum(['none', 'worktree']);
export type AgentIsolation = z.infer<typeof AgentIsolation>;

/** Where an agent file was found: the user's own (`~/.skate/agents`) or a workspace's. */
export const AgentScope = z.enum(['user', 'workspace']);
export type AgentScope = z.infer<typeof AgentScope>;

/**
 * The front matter of an agent file (`.skate/agents/*.md`, `~/.skate/agents/*.md`,
 * `.claude/agents/*.md`), as Claude Code names its keys plus Skate's own. Every key only narrows
 * what the spawning agent has: `write_paths` and `network` are intersected with its policy.
 */
export const AgentFrontMatter = z
  .object({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,63}$/, 'lowercase letters, digits and dashes, starting with a letter'),
    description: z.string().min(1).max(1000),
    tools: z.array(z.string().min(1)).optional(),
    model: z.string().min(1).optional(),
    write_paths: z.array(z.string().min(1)).max(32).optional(),
    network: z.enum(['off', 'on']).optional(),
    result_schema: z.enum(['generic', 'implementer', 'reviewer']).optional(),
    max_turns: z.number().int().positive().optional(),
    budget: AgentBudget.optional(),
    isolation: AgentIsolation.optional(),
  })
  .strict();
export type AgentFrontMatter = z.infer<typeof AgentFrontMatter>;

/** One agent definition as loaded: its front matter, its system prompt, and where it came from. */
export const AgentDefinition = AgentFrontMatter.extend({
  prompt: z.string(),
  scope: AgentScope,
  file: z.string(),
  /** SHA-256 of the file as read: what consent is given to. */
  sha256: z.string(),
});
export type AgentDefinition = z.infer<typeof AgentDefinition>;
