import type { AgentPath, EngineEvent, TokenUsage } from '../../shared/engine-events.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { Engine, type EngineOptions } from '../engine/engine.js';
import type {
  ConversationLog,
  EngineContext,
  MetaTool,
  RunOutcome,
  RunRequest,
} from '../engine/engine-types.js';
import { addUsage, zeroUsage } from '../engine/token-usage.js';
import { ExecutorClient } from '../executor-client/executor-client.js';
import type { ModelProvider } from '../provider/model-provider.js';
import { launcherFor, type SandboxMode } from '../sandbox/choose-launcher.js';
import { createCompleteTaskTool } from './complete-task-tool.js';
import { filterToolHost } from './filtered-tool-host.js';
import type { ResultContractName, SubAgentResult } from './result-contracts.js';
import { createSubAgentEmitter } from './sub-agent-emitter.js';
import { createSubAgentInbox } from './sub-agent-inbox.js';
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

/** A child executor as the spawn hooks see it. */
export interface ChildExecutorInfo {
  agentId: string;
  agent: AgentPath;
  /** The executor's host pid (its outermost process). */
  pid: number | undefined;
  policy: ResolvedPolicy;
  executor: ExecutorClient;
}

export interface SubAgentSpec {
  agentId: string;
  agent: AgentPath;
  parentCallId: string;
  policy: ResolvedPolicy;
  sandbox: SandboxMode;
  contract: ResultContractName;
  /** Executor tools to offer; all when undefined. */
  tools?: ReadonlySet<string> | undefined;
  /** Harness tools besides complete_task (a nested spawn_agent). */
  metaTools: readonly MetaTool[];
  provider: ModelProvider;
  model: string;
  maxTokens: number;
  thinkingBudgetTokens?: number | undefined;
  systemPrompt: string;
  maxTurns: number;
  budgetMs: number;
  /** The parent's signal: aborting it cancels the child. */
  signal: AbortSignal;
  emit(event: EngineEvent): void;
  log?: ConversationLog | undefined;
  diagnosticTools?: boolean | undefined;
  engineOptions?: EngineOptions | undefined;
  onSpawned?(info: ChildExecutorInfo): void;
  onExited?(info: ChildExecutorInfo): void;
}

/**
 * Runs one sub-agent to its end: a fresh executor under its own policy, a
 * fresh engine run (plus one reminder turn if it stops without a result), and
 * the executor shut down in `finally`, whatever happened. Never throws.
 */
export async function runSubAgent(spec: SubAgentSpec): Promise<SubAgentOutcome> {
  const started = performance.now();
  const budget = AbortSignal.timeout(spec.budgetMs);
  const signal = AbortSignal.any([spec.signal, budget]);
  let runs: RunOutcome[] = [];
  const done = (status: SubAgentFailureCode, message: string): SubAgentOutcome => ({
    status: 'failed',
    code: status,
    message,
    ...totals(runs, started),
  });
  const aborted = (): SubAgentOutcome =>
    spec.signal.aborted
      ? done('cancelled', 'the parent was cancelled')
      : done('timeout', `it ran out of its time budget (${Math.round(spec.budgetMs / 1000)} s)`);
  const note = (message: string) => spec.emit({ type: 'info', agent: spec.agent, message });

  let child: ChildExecutorInfo | undefined;
  try {
    const launcher = await launcherFor(spec.policy, spec.sandbox, { onNote: note });
    const executor = await ExecutorClient.spawn({
      policy: spec.policy,
      launcher,
      ...(spec.diagnosticTools && { diagnosticTools: true }),
    });
    child = { agentId: spec.agentId, agent: spec.agent, pid: executor.pid, policy: spec.policy, executor };
    spec.onSpawned?.(child);
    if (signal.aborted) return aborted();

    const available = (await executor.listTools()).map((tool) => tool.name);
    const metaNames = spec.metaTools.map((tool) => tool.definition.name);
    const unknown = [...(spec.tools ?? [])].filter(
      (name) => !available.includes(name) && !metaNames.includes(name) && name !== 'complete_task',
    );
    if (unknown.length > 0) {
      return done(
        'invalid_input',
        `unknown tools ${unknown.join(', ')}; the sub-agent's executor offers ${available.join(', ')}${metaNames.length > 0 ? `, and ${metaNames.join(', ')}` : ''}`,
      );
    }
    const completion = createCompleteTaskTool(spec.contract);
    const allowed = spec.tools;
    const ctx: EngineContext = {
      provider: spec.provider,
      tools: allowed ? filterToolHost(executor, allowed) : executor,
      metaTools: [
        completion.tool,
        ...spec.metaTools.filter((tool) => !allowed || allowed.has(tool.definition.name)),
      ],
      inbox: createSubAgentInbox(),
      signal,
      agent: spec.agent,
      ...(spec.log && { log: spec.log }),
    };
    const request: RunRequest = {
      prompt: { text: SUB_AGENT_KICKOFF },
      model: spec.model,
      maxTokens: spec.maxTokens,
      ...(spec.thinkingBudgetTokens !== undefined && { thinkingBudgetTokens: spec.thinkingBudgetTokens }),
      systemPrompt: spec.systemPrompt,
      maxTurns: spec.maxTurns,
      approval: 'auto',
      workspace: spec.policy.workspace,
      policyName: spec.policy.name,
    };
    const engine = new Engine(spec.engineOptions);
    const emitter = createSubAgentEmitter(spec.emit, spec.parentCallId);
    let last = await engine.run(ctx, request, emitter);
    runs = [last];
    if (completion.state().status === 'pending' && last.status === 'complete') {
      // One reminder, within what is left of the turn cap.
      note('sub-agent stopped without calling complete_task; reminding it once');
      last = await engine.run(
        ctx,
        {
          ...request,
          prompt: { text: SUB_AGENT_REMINDER },
          history: last.messages,
          maxTurns: Math.max(1, spec.maxTurns - last.turns),
        },
        emitter,
      );
      runs = [...runs, last];
    }

    const state = completion.state();
    if (state.status === 'completed')
      return { status: 'completed', result: state.result, ...totals(runs, started) };
    if (state.status === 'rejected')
      return done('invalid_result', `its result was invalid twice:\n${state.message}`);
    switch (last.status) {
      case 'cancelled':
        return aborted();
      case 'error':
        return done('error', last.error ?? 'its run failed');
      case 'loop_cap':
        return done('turn_cap', `it used its ${spec.maxTurns} turns without calling complete_task`);
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
    if (child) {
      const { executor } = child;
      await executor.shutdown().catch(() => executor.kill());
      spec.onExited?.(child);
    }
  }
}

function totals(runs: readonly RunOutcome[], started: number): OutcomeBase {
  return {
    turns: runs.reduce((sum, run) => sum + run.turns, 0),
    toolCalls: runs.reduce((sum, run) => sum + run.toolCalls, 0),
    usage: runs.reduce((sum, run) => addUsage(sum, run.usage), zeroUsage()),
    durationMs: Math.round(performance.now() - started),
  };
}
