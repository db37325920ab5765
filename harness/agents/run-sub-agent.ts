import type { AgentBudget } from '../../shared/agent-definition.js';
import type { DispatchFailure } from '../../shared/dispatch-telemetry.js';
import type { EngineEvent, TokenUsage } from '../../shared/engine-events.js';
import { addUsage, zeroUsage } from '../engine/token-usage.js';
import type { AgentRunResult, AgentSession } from '../runtime/agent-session.js';
import type { AgentSettings } from '../runtime/agent-settings.js';
import { createCompleteTaskTool } from './complete-task-tool.js';
import type { ResultContractName, SubAgentResult } from './result-contracts.js';
import { SUB_AGENT_KICKOFF, SUB_AGENT_REMINDER } from './sub-agent-prompt.js';

/** Why a sub-agent produced no result: a dispatch failure, or input that never started one. */
export type SubAgentFailureCode = DispatchFailure | 'invalid_input';

interface OutcomeBase {
  turns: number;
  toolCalls: number;
  usage: TokenUsage;
  durationMs: number;
  /** Invalid complete_task calls (each sent back for repair). */
  invalidSchemaRetries: number;
  /** Tool calls of its own refused to it (policy, rules, hooks). */
  approvalLoops: number;
}

export type SubAgentOutcome =
  | ({ status: 'completed'; result: SubAgentResult } & OutcomeBase)
  | ({ status: 'failed'; code: SubAgentFailureCode; message: string } & OutcomeBase);

/** One sub-agent to run: its agent's settings (less complete_task and the signal, added here). */
export interface SubAgentJob {
  start(settings: AgentSettings): Promise<AgentSession>;
  settings: AgentSettings;
  contract: ResultContractName;
  maxTurns: number;
  budgetMs: number;
  /** Its token budget; each response's output cap is also its `max_tokens` (set by the caller). */
  tokenBudget?: AgentBudget | undefined;
  /** The parent's signal: aborting it cancels the child. */
  signal: AbortSignal;
  note(message: string): void;
  onStarted?(session: AgentSession): void;
  onStopped?(session: AgentSession): void;
}

/** Tool error codes that mean the call was refused, not that it ran and failed. */
const REFUSED = new Set(['denied']);

/**
 * Runs one sub-agent to its end on its own agent runtime: a fresh executor
 * under its policy, one prompt (plus one reminder if it stops without a
 * result), and the agent closed in `finally`, whatever happened. Its token
 * budget is watched on its own `usage` events: the response that crosses it
 * ends the child as `budget_exceeded`. Never throws.
 */
export async function runSubAgent(job: SubAgentJob): Promise<SubAgentOutcome> {
  const started = performance.now();
  // A timer of our own, not AbortSignal.timeout: inside AbortSignal.any Node holds that signal only
  // weakly, so a full GC before the deadline collects it and cancels its timer (nodejs/node#57736),
  // and a child waiting on its model would never end.
  const budget = new AbortController();
  const budgetTimer = setTimeout(
    () => budget.abort(new DOMException('the sub-agent ran out of its time budget', 'TimeoutError')),
    job.budgetMs,
  );
  const tokens = new AbortController();
  let overBudget: string | undefined;
  let approvalLoops = 0;
  let spent = zeroUsage();
  const own = job.settings.agent ?? [];
  const isOwn = (event: EngineEvent): boolean =>
    event.agent.length === own.length && event.agent.every((part, i) => part === own[i]);
  const watch = (event: EngineEvent): void => {
    if (!isOwn(event)) return;
    if (event.type === 'tool_call_result' && event.isError && event.code && REFUSED.has(event.code))
      approvalLoops++;
    if (event.type !== 'usage' || overBudget) return;
    spent = addUsage(spent, event.turn);
    const { total, output_per_response: perResponse } = job.tokenBudget ?? {};
    const used = totalTokens(spent);
    if (total !== undefined && used > total)
      overBudget = `it used ${used} tokens, over its budget of ${total}`;
    else if (perResponse !== undefined && event.turn.outputTokens > perResponse)
      overBudget = `one response was ${event.turn.outputTokens} output tokens, over its ${perResponse} per response`;
    if (overBudget) tokens.abort(new DOMException(overBudget, 'AbortError'));
  };
  const parentEvents = job.settings.events;
  const signal = AbortSignal.any([job.signal, budget.signal, tokens.signal]);
  let runs: AgentRunResult[] = [];
  const completion = createCompleteTaskTool(job.contract);
  const base = (): OutcomeBase => ({
    ...totals(runs, started),
    invalidSchemaRetries: completion.invalidAttempts(),
    approvalLoops,
  });
  const done = (status: SubAgentFailureCode, message: string): SubAgentOutcome => ({
    status: 'failed',
    code: status,
    message,
    ...base(),
  });
  const aborted = (): SubAgentOutcome =>
    job.signal.aborted
      ? done('cancelled', 'the parent was cancelled')
      : overBudget
        ? done('budget_exceeded', overBudget)
        : done('timeout', `it ran out of its time budget (${Math.round(job.budgetMs / 1000)} s)`);

  let child: AgentSession | undefined;
  try {
    child = await job.start({
      ...job.settings,
      events: {
        emit(event) {
          watch(event);
          parentEvents?.emit(event);
        },
      },
      metaTools: [...(job.settings.metaTools ?? []), completion.tool],
      signal,
    });
    job.onStarted?.(child);
    if (signal.aborted) return aborted();

    const wanted = job.settings.tools;
    if (wanted) {
      const offered = await child.toolNames();
      const unknown = [...wanted].filter(
        (name) => !offered.executor.includes(name) && !offered.harness.includes(name),
      );
      if (unknown.length > 0) {
        const harness = offered.harness.filter((name) => name !== 'complete_task');
        return done(
          'invalid_input',
          `unknown tools ${unknown.join(', ')}; the sub-agent's executor offers ${offered.executor.join(', ')}${harness.length > 0 ? `, and ${harness.join(', ')}` : ''}`,
        );
      }
    }
    let last = await child.prompt(SUB_AGENT_KICKOFF);
    runs = [last];
    if (completion.state().status === 'pending' && last.status === 'complete') {
      // One reminder, within what is left of the turn cap.
      job.note('sub-agent stopped without calling complete_task; reminding it once');
      last = await child.prompt(SUB_AGENT_REMINDER, {
        maxTurns: Math.max(1, job.maxTurns - last.turns),
        turnOffset: last.turns,
      });
      runs = [...runs, last];
    }

    const state = completion.state();
    if (state.status === 'completed')
      return { status: 'completed', result: state.result as SubAgentResult, ...base() };
    if (state.status === 'rejected')
      return done('schema_invalid', `its result was invalid twice:\n${state.message}`);
    switch (last.status) {
      case 'cancelled':
        return aborted();
      case 'error':
        return signal.aborted ? aborted() : done('executor', last.error ?? 'its run failed');
      case 'loop_cap':
        return done('turn_cap', `it used its ${job.maxTurns} turns without calling complete_task`);
      case 'repetition':
        return done('turn_cap', last.error ?? 'it was stopped for repeating the same tool call');
      default:
        return done('schema_invalid', 'it stopped without calling complete_task, even after a reminder');
    }
  } catch (error) {
    if (signal.aborted) return aborted();
    const message = error instanceof Error ? error.message : String(error);
    return done('executor', `its executor failed: ${message}`);
  } finally {
    clearTimeout(budgetTimer);
    if (child) {
      await child.close();
      job.onStopped?.(child);
    }
  }
}

/** Input (cached or not) plus output: what a budget's `total` counts. */
export function totalTokens(usage: TokenUsage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}

function totals(
  runs: readonly AgentRunResult[],
  started: number,
): Omit<OutcomeBase, 'invalidSchemaRetries' | 'approvalLoops'> {
  return {
    turns: runs.reduce((sum, run) => sum + run.turns, 0),
    toolCalls: runs.reduce((sum, run) => sum + run.toolCalls, 0),
    usage: runs.reduce((sum, run) => addUsage(sum, run.usage), zeroUsage()),
    durationMs: Math.round(performance.now() - started),
  };
}
