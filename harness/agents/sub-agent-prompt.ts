import { createHash } from 'node:crypto';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { defaultSystemPrompt } from '../engine/system-prompt.js';
import { contractJsonSchema, type ResultContractName } from './result-contracts.js';

export interface SubAgentPromptInput {
  task: string;
  policy: ResolvedPolicy;
  contract: ResultContractName;
  /** The parent's own system prompt, when it replaced the default. */
  parentSystemPrompt?: string | undefined;
  /** The project's instructions (AGENTS.md files), as the parent got them. */
  projectInstructions?: string | undefined;
  /** What the parent was told beyond its base prompt (a plan, the user's instructions). */
  context?: string | undefined;
  /** What the sub-agent asked for and did not get. */
  notGranted: readonly string[];
  /** An agent definition's body: its role, in place of the parent's base prompt. */
  role?: string | undefined;
}

/** A sub-agent's system prompt, and the hash of its stable start (what children can share in the cache). */
export interface SubAgentPrompt {
  text: string;
  prefixSha256: string;
  /** Characters of `text` the prefix takes: where the provider puts a cache breakpoint. */
  prefixLength: number;
}

/**
 * The system prompt of a sub-agent. It starts with a deterministic prefix (the base prompt or the
 * definition's role, the project's instructions, the parent's context, the result contract),
 * identical for every child of the same parent, definition and contract, so their requests share
 * that prefix; what differs per child (its sandbox, its task) comes after.
 */
export function subAgentSystemPrompt(input: SubAgentPromptInput): SubAgentPrompt {
  const { policy } = input;
  // Nothing of one child in the prefix: its policy's name and its workspace (a worktree's differs) go below.
  const base = input.role ?? input.parentSystemPrompt ?? defaultSystemPrompt();
  const writes = policy.write.allow.length > 0 ? policy.write.allow.join(', ') : 'nothing (read-only)';
  const prefix = [
    base,
    ...(input.projectInstructions ? [input.projectInstructions] : []),
    ...(input.context ? [`# Context from the agent that started you\n${input.context}`] : []),
    [
      '# How to finish',
      'When the task is done, or you cannot go on, call the complete_task tool once with your result. Ending your turn without calling it delivers nothing.',
      `Its input must match this JSON Schema (contract "${input.contract}"):`,
      JSON.stringify(contractJsonSchema(input.contract)),
    ].join('\n'),
  ].join('\n\n');
  const own = [
    [
      '# You are a sub-agent',
      'Another agent started you to do one task on your own. Nobody can answer questions: decide on your best judgement and state your assumptions in your result.',
      `- Workspace: ${policy.workspace}. Relative paths resolve against it. Sandbox policy: "${policy.name}".`,
      `- You may write: ${writes}. Network: ${policy.network.mode === 'allowlist' ? `only ${policy.network.allow.join(', ') || 'no host'}, through a proxy (HTTP_PROXY)` : policy.network.mode}. The kernel enforces this; a denial is final.`,
      ...input.notGranted.map((line) => `- Asked for but not granted: ${line}.`),
    ].join('\n'),
    `# Your task\n${input.task}`,
  ].join('\n\n');
  return {
    text: `${prefix}\n\n${own}`,
    prefixSha256: createHash('sha256').update(prefix).digest('hex'),
    prefixLength: prefix.length,
  };
}

/** The first user message of a sub-agent: the task itself lives in the system prompt. */
export const SUB_AGENT_KICKOFF = 'Do the task described in your instructions, then call complete_task.';

/** The one reminder a sub-agent gets when it stops without a result. */
export const SUB_AGENT_REMINDER =
  'You ended your turn without calling complete_task, so your work has not been delivered. Call complete_task now with your result (status blocked or failed if you could not finish).';
