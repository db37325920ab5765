import type { TokenUsage } from '../../shared/engine-events.js';
import { addUsage, zeroUsage } from '../engine/token-usage.js';
import type { AgentRunResult, AgentSession } from '../runtime/agent-session.js';
import type { AgentSettings } from '../runtime/agent-settings.js';
import { createCompleteTaskTool } from './complete-task-tool.js';
import type { ResultContractName, SubAgentResult } from './result-contracts.js';
import { SUB_AGENT_KICKOFF, SUB_AGENT_REMINDER } from './sub-agent-prompt.js';

/** Why a sub-agent produced no result. */
export type SubAgentFailureCode =
  | 'invalid_input'
  | 'policy'
  | 'depth'
  | 'executor'
  | 'invalid_result'
  | 'no_result'
  | 'turn_cap'
  | 'timeout'
  | 'cancelled'
  | 'error';

interface OutcomeBase {
  turns: number;
  toolCalls: number;
  usage: TokenUsage;
  durationMs: number;
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
  /** The parent's signal: aborting it cancels the child. */
  signal: AbortSignal;
  note(message: string): void;
  onStarted?(session: AgentSession): void;
  onStopped?(session: AgentSession): void;
}

/**
 * Runs one sub-agent to its end on its own agent runtime: a fresh executor
 * under its policy, one prompt (plus one reminder if it stops without a
 * result), and the agent closed in `finally`, whatever happened. Never throws.
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
  const signal = AbortSignal.any([job.signal, budget.signal]);
  let runs: AgentRunResult[] = [];
  const done = (status: SubAgentFailureCode, message: string): SubAgentOutcome => ({
    status: 'failed',
    code: status,
    message,
    ...totals(runs, started),
  });
  const aborted = (): SubAgentOutcome =>
    job.signal.aborted
      ? done('cancelled', 'the parent was cancelled')
      : done('timeout', `it ran out of its time budget (${Math.round(job.budgetMs / 1000)} s)`);

  const completion = createCompleteTaskTool(job.contract);
  let child: AgentSession | undefined;
  try {
    child = await job.start({
      ...job.settings,
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
      return { status: 'completed', result: state.result as SubAgentResult, ...totals(runs, started) };
    if (state.status === 'rejected')
      return done('invalid_result', `its result was invalid twice:\n${state.message}`);
    switch (last.status) {
      case 'cancelled':
        return aborted();
      case 'error':
        return done('error', last.error ?? 'its run failed');
      case 'loop_cap':
        return done('turn_cap', `it used its ${job.maxTurns} turns without calling complete_task`);
      case 'repetition':
        return done('error', last.error ?? 'it was stopped for repeating the same tool call');
      default:
        return done('no_result', 'it stopped without calling complete_task, even after a reminder');
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

function totals(runs: readonly AgentRunResult[], started: number): OutcomeBase {
  return {
    turns: runs.reduce((sum, run) => sum + run.turns, 0),
    toolCalls: runs.reduce((sum, run) => sum + run.toolCalls, 0),
    usage: runs.reduce((sum, run) => addUsage(sum, run.usage), zeroUsage()),
    durationMs: Math.round(performance.now() - started),
  };
}
