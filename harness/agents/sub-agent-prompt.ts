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
}

/** The system prompt of a sub-agent: the parent's context, its sandbox, its task and its result contract. */
export function subAgentSystemPrompt(input: SubAgentPromptInput): string {
  const { policy } = input;
  const base =
    input.parentSystemPrompt ?? defaultSystemPrompt({ workspace: policy.workspace, policyName: policy.name });
  const writes = policy.write.allow.length > 0 ? policy.write.allow.join(', ') : 'nothing (read-only)';
  const sections = [
    base,
    ...(input.projectInstructions ? [input.projectInstructions] : []),
    ...(input.context ? [`# Context from the agent that started you\n${input.context}`] : []),
    [
      '# You are a sub-agent',
      'Another agent started you to do one task on your own. Nobody can answer questions: decide on your best judgement and state your assumptions in your result.',
      `- You may write: ${writes}. Network: ${policy.network.mode === 'allowlist' ? `only ${policy.network.allow.join(', ') || 'no host'}, through a proxy (HTTP_PROXY)` : policy.network.mode}. The kernel enforces this; a denial is final.`,
      ...input.notGranted.map((line) => `- Asked for but not granted: ${line}.`),
    ].join('\n'),
    `# Your task\n${input.task}`,
    [
      '# How to finish',
      'When the task is done, or you cannot go on, call the complete_task tool once with your result. Ending your turn without calling it delivers nothing.',
      `Its input must match this JSON Schema (contract "${input.contract}"):`,
      JSON.stringify(contractJsonSchema(input.contract)),
    ].join('\n'),
  ];
  return sections.join('\n\n');
}

/** The first user message of a sub-agent: the task itself lives in the system prompt. */
export const SUB_AGENT_KICKOFF = 'Do the task described in your instructions, then call complete_task.';

/** The one reminder a sub-agent gets when it stops without a result. */
export const SUB_AGENT_REMINDER =
  'You ended your turn without calling complete_task, so your work has not been delivered. Call complete_task now with your result (status blocked or failed if you could not finish).';
