import { createCompleteTaskTool } from '../agents/complete-task-tool.js';
import type { ResultContract } from '../agents/result-contracts.js';
import type { MetaTool } from '../engine/engine-types.js';
import { addUsage } from '../engine/token-usage.js';
import type { AgentRunResult, PromptOptions } from './agent-run-result.js';

/** The tool a run with an output schema gives its answer through. */
export const STRUCTURED_OUTPUT_TOOL = 'structured_output';

/** What a structured run needs of its agent: its plain run, and a way to offer a tool for that run only. */
export interface StructuredRunHost {
  run(text: string, options: PromptOptions, signal: AbortSignal): Promise<AgentRunResult>;
  /** Offers `tools` to the runs from now on (an empty list takes them back). */
  offerRunTools(tools: MetaTool[]): void;
  /** The settings' turn cap, for a prompt without its own. */
  maxTurns: number;
}

/**
 * A run whose answer must match `contract`, through the same validation-and-repair path as a
 * sub-agent's result (`createCompleteTaskTool`): `structured_output` is offered for this run,
 * an invalid call gets one repair turn, a run ending without a call one reminder. Kept apart
 * from `AgentSession` because it is one policy over plain runs, not state of the agent.
 */
export async function structuredRun(
  host: StructuredRunHost,
  text: string,
  options: PromptOptions,
  contract: ResultContract,
  signal: AbortSignal,
): Promise<AgentRunResult> {
  const completion = createCompleteTaskTool(contract, {
    name: STRUCTURED_OUTPUT_TOOL,
    description: `Gives your final answer, as the JSON the user asked for (${contract.label}). Call it exactly once, when you have the answer, with the answer as its input; the run ends with it. An invalid answer is sent back with the validation error, once, for you to fix.`,
  });
  host.offerRunTools([completion.tool]);
  try {
    const ask = `${text}\n\n[Skate: give your final answer by calling the ${STRUCTURED_OUTPUT_TOOL} tool; its input must match the JSON Schema it declares.]`;
    const first = await host.run(ask, options, signal);
    let last = first;
    if (completion.state().status === 'pending' && first.status === 'complete' && !signal.aborted) {
      last = await host.run(
        `You ended your turn without calling ${STRUCTURED_OUTPUT_TOOL}, so there is no answer yet. Call ${STRUCTURED_OUTPUT_TOOL} now with your answer.`,
        {
          maxTurns: Math.max(1, (options.maxTurns ?? host.maxTurns) - first.turns),
          turnOffset: first.turns,
        },
        signal,
      );
    }
    const merged: AgentRunResult = {
      ...last,
      turns: first.turns + (last === first ? 0 : last.turns),
      toolCalls: first.toolCalls + (last === first ? 0 : last.toolCalls),
      usage: last === first ? first.usage : addUsage(first.usage, last.usage),
      durationMs: first.durationMs + (last === first ? 0 : last.durationMs),
    };
    const state = completion.state();
    if (state.status === 'completed') {
      return {
        ...merged,
        status: 'complete',
        structuredOutput: state.result,
        finalMessage: merged.finalMessage.trim() === '' ? JSON.stringify(state.result) : merged.finalMessage,
      };
    }
    if (merged.status !== 'complete') return merged;
    const why =
      state.status === 'rejected'
        ? `the answer did not match ${contract.label}, even after its repair turn:\n${state.message}`
        : `the model ended without giving its answer through ${STRUCTURED_OUTPUT_TOOL}, even after a reminder`;
    return { ...merged, status: 'error', error: why, errorCode: 'invalid_output' };
  } finally {
    host.offerRunTools([]);
  }
}
