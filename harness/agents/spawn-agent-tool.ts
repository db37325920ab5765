import * as z from 'zod';
import { AgentBudget, AgentIsolation } from '../../shared/agent-definition.js';
import type { DispatchFailure, DispatchRecord } from '../../shared/dispatch-telemetry.js';
import type { AgentPath, EngineEvent } from '../../shared/engine-events.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { networkLabel } from '../../shared/policy.js';
import type { ToolErrorCode, ToolResult } from '../../shared/tool.js';
import type { ConversationLog, MetaTool } from '../engine/engine-types.js';
import { invalidInputResult } from '../engine/invalid-input-result.js';
import type { ToolRules } from '../engine/tool-rules.js';
import type { HookRunner } from '../hooks/hook-runner.js';
import { type McpChildGrant, type McpGrantSource, mcpToolsForChild } from '../mcp/mcp-tools-for-child.js';
import type { ModelProvider } from '../provider/model-provider.js';
import type { AgentSession } from '../runtime/agent-session.js';
import type { AgentSettings, ChildExecutorInfo } from '../runtime/agent-settings.js';
import type { ExecutorRegistry } from '../runtime/executor-registry.js';
import type { SandboxMode } from '../sandbox/choose-launcher.js';
import type { NoticeEvent } from '../session/notice-line.js';
import type { AgentDiffStore } from './agent-diff-store.js';
import { AgentIds } from './agent-ids.js';
import { type AgentWorktree, createAgentWorktree } from './agent-worktree.js';
import type { BackgroundAgents, BackgroundEnding } from './background-agents.js';
import { planDispatch } from './dispatch-plan.js';
import { ensureWriteRoots } from './ensure-write-roots.js';
import { inputJsonSchema } from './input-json-schema.js';
import { ResultContractName } from './result-contracts.js';
import { runSubAgent, type SubAgentFailureCode, type SubAgentOutcome, totalTokens } from './run-sub-agent.js';
import type { AgentCatalogEntry } from './setup-agent-definitions.js';
import { createSubAgentEmitter } from './sub-agent-emitter.js';
import { subAgentSystemPrompt } from './sub-agent-prompt.js';
import { isolatedPolicy } from './worktree-policy.js';

export const SpawnAgentInput = z.object({
  agent: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Start one of the defined agents (listed in this tool’s description) by name; the other fields narrow it further.',
    ),
  task: z
    .string()
    .min(1)
    .describe(
      'The whole task, self-contained: the sub-agent sees nothing of your conversation. Say what to do, where, and what to report.',
    ),
  write_paths: z
    .array(z.string().min(1))
    .max(32)
    .optional()
    .describe(
      'Files or directories it may write, relative to the workspace; only the part inside what you may write is granted. One that does not exist yet is created as an empty directory, so for a new file name its directory. Default: all you may write.',
    ),
  network: z
    .enum(['off', 'on'])
    .optional()
    .describe('Network access; never more than yours. Default: as yours.'),
  read_only: z.boolean().optional().describe('True for a sub-agent that only reads (exploring, reviewing).'),
  tools: z
    .array(z.string().min(1))
    .optional()
    .describe(
      "Offer only these tools (complete_task is always offered). Default: all its executor has. MCP tools only when named here (`mcp__server__tool`, or `mcp__server__*` for all of a server's).",
    ),
  result_schema: ResultContractName.optional().describe(
    'The shape of its result: generic (status, summary, files_changed, tests_run, follow_ups), implementer (generic plus tests_passed, notes) or reviewer (status, summary, severity-tagged issues). Default generic.',
  ),
  budget: AgentBudget.optional().describe(
    'Its token budget: total (input, cached or not, plus output, over its whole run) and output_per_response. Exceeding it ends it as budget_exceeded.',
  ),
  isolation: AgentIsolation.optional().describe(
    'worktree: it writes only in its own copy of the workspace (your uncommitted changes included), and its changes come back as a diff (worktree.diff_id in the result) that you apply with apply_agent_diff, conflicts reported. For writers that may touch the same files. Default none.',
  ),
  background: z
    .boolean()
    .optional()
    .describe(
      'True to start it and go on at once: you get its id now, check it with agent_status, wait with agent_wait, and its result comes to you as a message when it ends.',
    ),
});
export type SpawnAgentInput = z.infer<typeof SpawnAgentInput>;

const DESCRIPTION = `Start a sub-agent for one task: a fresh conversation on its own sandboxed executor, never allowed more than you (narrow it with write_paths, read_only, network). Several calls in one reply run in parallel: split independent work across them, with disjoint write_paths for writers. It cannot ask questions and ends with complete_task; you get its validated result as JSON, or an error.`;

/** The tool's description, with the defined agents the model may start by name. */
function describe(agents: readonly AgentCatalogEntry[]): string {
  if (agents.length === 0) return DESCRIPTION;
  const lines = agents.map(
    (entry) =>
      `- ${entry.definition.name}: ${entry.definition.description.replace(/\s+/g, ' ')}${entry.usable ? '' : " (not usable: needs the user's consent)"}`,
  );
  return `${DESCRIPTION}\n\nDefined agents (pass agent: NAME):\n${lines.join('\n')}`;
}

/** What a child's provider is chosen by (tests script each child separately). */
export interface ChildProviderInfo {
  agentId: string;
  agent: AgentPath;
  task: string;
}

/** What the session hook is told about a new child. */
export interface ChildSessionInfo {
  agentId: string;
  /** The spawn_agent call of the parent that starts this child. */
  callId: string;
  task: string;
  policy: ResolvedPolicy;
  agent: AgentPath;
  /** The spawning agent's session, when it is itself a sub-agent with one. */
  parentSessionId?: string | undefined;
}

/** A child's session log, as the CLI provides it. */
export interface ChildSession {
  log: ConversationLog;
  sessionId: string;
  /** Keeps one of the child's own notices (network refusals, hook decisions) in its log. */
  notice?(event: NoticeEvent): void;
  close?(): Promise<void>;
}

export interface SpawnAgentToolOptions {
  /** The resolved policy of the spawning agent's executor: every child's policy is a narrowing of it. */
  parentPolicy: ResolvedPolicy;
  /** The sandbox mode the parent's executor was started with. */
  sandbox: SandboxMode;
  providerFor(info: ChildProviderInfo): ModelProvider;
  model: string;
  maxTokens: number;
  thinkingBudgetTokens?: number | undefined;
  /** The parent's system prompt when it replaced the default. */
  parentSystemPrompt?: string | undefined;
  /** Context carried into every child's system prompt (a plan, the user's appended instructions). */
  context?: string | undefined;
  /** The project's instructions (AGENTS.md files): children follow them too. */
  projectInstructions?: string | undefined;
  /** Depth of the agent this tool belongs to: 0 for the main agent. */
  depth?: number;
  /** Sub-agent levels allowed below the main agent. Default 2. */
  maxDepth?: number;
  /** Turn cap of each child. Default 30. */
  maxTurns?: number;
  /** Wall-clock budget of each child, in ms. Default 10 minutes. */
  budgetMs?: number;
  /** The agent definitions the model may start by name. */
  agents?: readonly AgentCatalogEntry[] | undefined;
  /** Children write nothing, whatever they ask (planning sessions, deny-writes runs). */
  readOnlyChildren?: boolean;
  /** Offer the executors' diagnostic tools (tests and benchmarks). */
  diagnosticTools?: boolean | undefined;
  /** Where the run's sandbox notes go, when it has one sink for all its executors; else each child's are events. */
  onSandboxNote?: ((line: string) => void) | undefined;
  onSandboxWarning?: ((line: string) => void) | undefined;
  /** The run's `--allowedTools` / `--disallowedTools`: a child is held to them too. */
  toolRules?: ToolRules | undefined;
  /**
   * The MCP servers this agent may give: the run's (the main agent), or its own grant (a
   * sub-agent). A child is given those its `tools` name, if their policy is no wider than its.
   */
  mcp?: McpGrantSource | undefined;
  /** Gives a child its own session log, linked to the parent's; undefined for none. Closed when the child ends. */
  sessionForChild?(info: ChildSessionInfo): Promise<ChildSession | undefined> | ChildSession | undefined;
  /** The spawning agent's session id, passed to `sessionForChild` of its children. */
  parentSessionId?: string | undefined;
  onChildSpawned?(info: ChildExecutorInfo): void;
  onChildExited?(info: ChildExecutorInfo): void;
  /** The tree's hooks: each child gets them, so delegating cannot skip a hook. */
  hooks?: HookRunner | undefined;
  /** Where `isolation: "worktree"` children's worktrees and diffs are kept; none: not offered. */
  worktrees?: AgentDiffStore | undefined;
  /** Where each child reports its executor (the terminal UI's executor panel). */
  executors?: ExecutorRegistry | undefined;
  /** The session's sub-agent ids, so they are not reused across runs; default: this tool's own. */
  ids?: AgentIds | undefined;
  /** The session's background children (the main agent's only); undefined: `background: true` is refused. */
  background?: BackgroundAgents | undefined;
  /**
   * Starts a child agent: `createAgentSession`, passed in so that this tool
   * (which the runtime offers) does not import the runtime back.
   */
  startChild(settings: AgentSettings): Promise<AgentSession>;
}

const TOOL_CODES: Record<SubAgentFailureCode, ToolErrorCode> = {
  invalid_input: 'invalid_input',
  policy: 'denied',
  executor: 'internal',
  schema_invalid: 'failed',
  budget_exceeded: 'failed',
  review_blocked: 'failed',
  turn_cap: 'failed',
  timeout: 'timeout',
  cancelled: 'cancelled',
};

/**
 * `spawn_agent`: runs a sub-agent, an agent of its own (`startChild`) on a new
 * executor under a policy narrowed from the parent's (see `childPolicyFor`),
 * and returns its validated `complete_task` result. Nothing here is shared
 * between calls but the id counter (the session's: ids are never reused in it),
 * so parallel calls run fully in parallel.
 */
export function createSpawnAgentTool(options: SpawnAgentToolOptions): MetaTool {
  const depth = options.depth ?? 0;
  const maxDepth = options.maxDepth ?? 2;
  const inputSchema = inputJsonSchema(SpawnAgentInput);
  const ids = options.ids ?? new AgentIds();

  return {
    definition: {
      name: 'spawn_agent',
      description: describe(options.agents ?? []),
      // A child writes with approval 'auto' (its policy is the gate), so an asking parent asks once, here.
      effect: options.readOnlyChildren ? 'read' : 'execute',
      inputSchema,
    },
    async run(call): Promise<ToolResult> {
      const parsed = SpawnAgentInput.safeParse(call.input);
      if (!parsed.success) {
        return invalidInputResult('spawn_agent', parsed.error);
      }
      const input = parsed.data;
      if (depth >= maxDepth) {
        return failure(
          undefined,
          'policy',
          `sub-agents may be nested ${maxDepth} deep, and this one is at the limit`,
        );
      }
      const background = input.background ? options.background : undefined;
      if (input.background) {
        const refusal = background
          ? background.refusal()
          : 'background sub-agents are for the main agent; a sub-agent’s own children run in the foreground (they end before it reports)';
        if (refusal) return failure(undefined, 'policy', `no background sub-agent: ${refusal}`);
      }
      const agentId = background ? background.nextId() : ids.next('agent');
      const agent = [...call.agent, agentId];
      const planned = planDispatch(input, {
        parent: options.parentPolicy,
        agents: options.agents ?? [],
        agentId,
        forceReadOnly: Boolean(options.readOnlyChildren),
        maxTurns: options.maxTurns ?? 30,
      });
      if (!planned.ok) return failure(agentId, planned.code, planned.message);
      const { plan } = planned;
      let { policy } = plan;
      const extraNotGranted: string[] = [];
      let worktree: AgentWorktree | undefined;
      // Either may ask for a worktree; the call cannot take away its definition's.
      if (input.isolation === 'worktree' || plan.definition?.isolation === 'worktree') {
        if (!options.worktrees)
          return failure(agentId, 'policy', 'worktree isolation is not available to this agent');
        if (policy.write.allow.length === 0) {
          extraNotGranted.push('isolation worktree: it may write nothing, so it runs without one');
        } else {
          try {
            worktree = await createAgentWorktree({
              workspace: options.parentPolicy.workspace,
              policy: options.parentPolicy,
              dir: options.worktrees.worktreeDir(agentId),
            });
          } catch (error) {
            return failure(
              agentId,
              'executor',
              `its worktree could not be made: ${(error as Error).message}`,
            );
          }
          policy = isolatedPolicy(policy, worktree.path);
          call.emit({
            type: 'info',
            agent,
            message: `sub-agent ${agentId} works in its own worktree ${worktree.path} (${worktree.copied} files copied${worktree.skipped.length > 0 ? `; left out: ${worktree.skipped.slice(0, 5).join('; ')}${worktree.skipped.length > 5 ? '; …' : ''}` : ''})`,
          });
        }
      }
      const parentRoots = worktree ? [worktree.path] : options.parentPolicy.write.allow;
      const missing = policy.write.allow.filter((root) => !parentRoots.includes(root));
      const mcp: McpChildGrant | undefined = plan.tools
        ? await mcpToolsForChild(plan.tools, options.mcp?.serverTools() ?? [], policy)
        : undefined;
      const tools = mcp ? [...mcp.rest, ...mcp.tools.map((tool) => tool.definition.name)] : undefined;
      const notGranted = [
        ...plan.notGranted,
        ...extraNotGranted,
        ...(mcp?.notGranted ?? []),
        ...(await ensureWriteRoots(missing, parentRoots)),
      ];
      const writes = policy.write.allow.length > 0 ? policy.write.allow.join(', ') : 'nothing';
      call.emit({
        type: 'info',
        agent,
        message: `sub-agent ${agentId}${plan.definition ? ` (${plan.definition.name})` : ''} starting under ${policy.name}: writes ${writes}; network ${networkLabel(policy.network)}`,
      });
      for (const line of notGranted) call.emit({ type: 'warn', agent, message: `not granted: ${line}` });

      const dispatch = async (
        signal: AbortSignal,
        emit: (event: EngineEvent) => void,
      ): Promise<BackgroundEnding> => {
        let session: ChildSession | undefined;
        try {
          session = await options.sessionForChild?.({
            agentId,
            callId: call.callId,
            task: input.task,
            policy,
            agent,
            parentSessionId: options.parentSessionId,
          });
        } catch (error) {
          emit({
            type: 'warn',
            agent,
            message: `no session log for ${agentId}: ${(error as Error).message}`,
          });
        }
        const childDepth = depth + 1;
        const { contract } = plan;
        const maxTokens = Math.min(options.maxTokens, plan.budget.output_per_response ?? options.maxTokens);
        const prompt = subAgentSystemPrompt({
          task: input.task,
          policy,
          contract,
          parentSystemPrompt: options.parentSystemPrompt,
          projectInstructions: options.projectInstructions,
          context: options.context,
          notGranted,
          role: plan.role,
        });
        const provider = options.providerFor({ agentId, agent, task: input.task });
        const childInfo = (session: AgentSession): ChildExecutorInfo => ({
          agentId,
          agent,
          pid: session.executorPid,
          policy,
          executor: session.executorClient,
        });
        const running = runSubAgent({
          start: options.startChild,
          contract,
          maxTurns: plan.maxTurns,
          tokenBudget: plan.budget,
          budgetMs: options.budgetMs ?? 10 * 60_000,
          signal,
          note: (message) => emit({ type: 'info', agent, message }),
          settings: {
            workspace: policy.workspace,
            executor: {
              kind: 'local',
              policy,
              sandbox: options.sandbox,
              ...(options.diagnosticTools && { diagnosticTools: true }),
              // The run's own sink when it has one (the CLI's: each line once, notes only with --verbose).
              onSandboxNote: options.onSandboxNote ?? ((message) => emit({ type: 'info', agent, message })),
              onSandboxWarning:
                options.onSandboxWarning ?? ((message) => emit({ type: 'warn', agent, message })),
            },
            model: {
              provider,
              name: plan.model ?? options.model,
              maxTokens,
              thinkingBudgetTokens: options.thinkingBudgetTokens,
            },
            approval: 'auto',
            ...(options.toolRules && { toolRules: options.toolRules }),
            maxTurns: plan.maxTurns,
            systemPrompt: prompt.text,
            systemCachePrefix: prompt.prefixLength,
            session: session
              ? { kind: 'child', log: session.log, sessionId: session.sessionId, notice: session.notice }
              : { kind: 'none' },
            ...(childDepth < maxDepth && {
              subagents: {
                maxDepth,
                depth: childDepth,
                readOnly: options.readOnlyChildren ?? false,
                context: options.context,
                parentSystemPrompt: options.parentSystemPrompt,
                projectInstructions: options.projectInstructions,
                ...(options.maxTurns !== undefined && { maxTurns: options.maxTurns }),
                ...(options.budgetMs !== undefined && { budgetMs: options.budgetMs }),
                providerFor: options.providerFor,
                ...(options.sessionForChild && {
                  sessionForChild: async (info: ChildSessionInfo) => options.sessionForChild?.(info),
                }),
                ...(options.onChildSpawned && { onChildSpawned: options.onChildSpawned }),
                ...(options.onChildExited && { onChildExited: options.onChildExited }),
                ...(options.agents && { agents: options.agents }),
                // Its children choose among what it was given, never more (at every depth).
                ...(mcp && options.mcp && { mcp: grantSource(mcp, options.mcp) }),
              },
            }),
            answerer: 'nobody',
            ...(options.hooks && { hooks: options.hooks }),
            ...(options.executors && { executors: options.executors }),
            events: createSubAgentEmitter(emit, call.callId),
            agent,
            tools: tools ? new Set(tools) : undefined,
            ...(mcp && mcp.tools.length > 0 && mcpToolsOf(mcp, options.mcp)),
          },
          onStarted: (session) => options.onChildSpawned?.(childInfo(session)),
          onStopped: (session) => options.onChildExited?.(childInfo(session)),
        }).finally(() => session?.close?.());
        let outcome: SubAgentOutcome;
        let changes: Record<string, unknown> | undefined;
        try {
          outcome = await running;
          if (worktree && options.worktrees && !signal.aborted)
            changes = await worktreeChanges(agentId, worktree, options.worktrees, (message) =>
              emit({ type: 'warn', agent, message }),
            );
        } finally {
          // Done, failed or cancelled: the worktree goes; only its diff (in memory) is kept.
          await worktree?.remove();
        }
        call.addUsage(outcome.usage);
        const record = dispatchRecord(agentId, plan.definition?.name, contract, outcome, prompt.prefixSha256);
        emit({ type: 'dispatch_end', agent, parentCallId: call.callId, record });
        return {
          result: report(agentId, session?.sessionId, notGranted, outcome, record, changes),
          failure: record.failure,
        };
      };
      if (!background) return (await dispatch(call.signal, call.emit)).result;
      background.start({
        id: agentId,
        agent,
        task: input.task,
        callId: call.callId,
        run: (signal, observe) =>
          dispatch(signal, (event) => {
            observe(event);
            call.emit(event);
          }),
      });
      return {
        output: JSON.stringify({
          agent_id: agentId,
          background: true,
          state: 'running',
          task: input.task,
          note: 'It runs on while you go on. agent_status reports it, agent_wait waits for it, and its result comes to you as a message when it ends.',
        }),
        isError: false,
      };
    },
  };
}

/** A reviewer's verdict blocks when it says blocked or names a critical issue. */
function reviewBlocks(contract: string, result: unknown): boolean {
  if (contract !== 'reviewer') return false;
  const review = result as { status?: string; issues?: { severity?: string }[] };
  return review.status === 'blocked' || (review.issues ?? []).some((issue) => issue.severity === 'critical');
}

function dispatchRecord(
  agentId: string,
  agentName: string | undefined,
  contract: string,
  outcome: SubAgentOutcome,
  prefixSha256: string,
): DispatchRecord {
  const failure: DispatchFailure | undefined =
    outcome.status === 'completed'
      ? reviewBlocks(contract, outcome.result)
        ? 'review_blocked'
        : undefined
      : outcome.code === 'invalid_input'
        ? 'policy'
        : outcome.code;
  return {
    agent_id: agentId,
    ...(agentName !== undefined && { agent_name: agentName }),
    status: outcome.status,
    ...(failure && { failure }),
    turns: outcome.turns,
    tool_calls: outcome.toolCalls,
    input_tokens: outcome.usage.inputTokens,
    output_tokens: outcome.usage.outputTokens,
    cache_read_tokens: outcome.usage.cacheReadTokens,
    cache_write_tokens: outcome.usage.cacheWriteTokens,
    tokens: totalTokens(outcome.usage),
    invalid_schema_retries: outcome.invalidSchemaRetries,
    approval_loops: outcome.approvalLoops,
    wall_ms: outcome.durationMs,
    prefix_sha256: prefixSha256,
  };
}

function usageSummary(record: DispatchRecord): Record<string, number> {
  return {
    turns: record.turns,
    tool_calls: record.tool_calls,
    input_tokens: record.input_tokens,
    output_tokens: record.output_tokens,
    cache_read_tokens: record.cache_read_tokens,
    cache_write_tokens: record.cache_write_tokens,
    duration_ms: record.wall_ms,
  };
}

/** What the parent's model reads: the validated result as JSON, or a typed failure. */
function report(
  agentId: string,
  sessionId: string | undefined,
  notGranted: readonly string[],
  outcome: SubAgentOutcome,
  record: DispatchRecord,
  worktree?: Record<string, unknown> | undefined,
): ToolResult {
  const about = {
    agent_id: agentId,
    ...(record.agent_name !== undefined && { agent: record.agent_name }),
    ...(sessionId !== undefined && { session_id: sessionId }),
    ...(notGranted.length > 0 && { not_granted: notGranted }),
    ...(worktree && { worktree }),
    usage: usageSummary(record),
    // The whole record: `skate sessions show` reads the session's telemetry back from it.
    dispatch: record,
  };
  if (outcome.status === 'completed') {
    return {
      output: prettyJson({
        ...about,
        ...(record.failure && { failure: record.failure }),
        result: outcome.result,
      }),
      isError: false,
    };
  }
  return {
    output: `sub-agent failed (${record.failure ?? outcome.code}): ${outcome.message}\n${JSON.stringify({ ...about, failure: record.failure ?? outcome.code })}`,
    isError: true,
    code: TOOL_CODES[outcome.code],
  };
}

/**
 * Indented JSON whose figures (`usage`, `dispatch`) stay on one line each: the result is what the
 * model and a reader want to see, and the figures must not push it off a terminal's screen.
 */
function prettyJson(value: { usage: unknown; dispatch: unknown } & Record<string, unknown>): string {
  const marks = { usage: '\u0000usage\u0000', dispatch: '\u0000dispatch\u0000' };
  return JSON.stringify({ ...value, usage: marks.usage, dispatch: marks.dispatch }, null, 2)
    .replace(JSON.stringify(marks.usage), JSON.stringify(value.usage))
    .replace(JSON.stringify(marks.dispatch), JSON.stringify(value.dispatch));
}

function failure(agentId: string | undefined, code: SubAgentFailureCode, message: string): ToolResult {
  return {
    output: `sub-agent failed (${code}): ${message}\n${JSON.stringify({ ...(agentId !== undefined && { agent_id: agentId }), failure: code })}`,
    isError: true,
    code: TOOL_CODES[code],
  };
}

/**
 * A worktree child's changes as its result tells them: the files, the diff to read, and the id
 * `apply_agent_diff` takes (kept in the store; none when it changed nothing).
 */
async function worktreeChanges(
  agentId: string,
  worktree: AgentWorktree,
  store: AgentDiffStore,
  warn: (message: string) => void,
): Promise<Record<string, unknown>> {
  try {
    const diff = await worktree.collect();
    if (diff.changes.length === 0) return { files: [] };
    const id = store.put(agentId, diff);
    return {
      diff_id: id,
      files: diff.changes.map((change) => ({ path: change.path, status: change.status })),
      diff: diff.text,
      ...(diff.truncated && { diff_truncated: true }),
      apply: `apply_agent_diff with agent_id "${id}"`,
    };
  } catch (error) {
    warn(`the changes of ${agentId} could not be read back: ${(error as Error).message}`);
    return { error: `its changes could not be read back: ${(error as Error).message}` };
  }
}

/** What a child may give its own children: its grant, over the servers as they are at each look. */
function grantSource(grant: McpChildGrant, servers: McpGrantSource): McpGrantSource {
  return {
    serverTools: () => grant.servers(servers.serverTools()),
    ...(servers.toolsVersion && { toolsVersion: () => servers.toolsVersion?.() ?? 0 }),
  };
}

/**
 * A child's MCP tools: as granted at spawn, and, when the servers' tools can change, the same grant
 * applied again at each change (a new tool a pattern names is offered; one that vanished is gone).
 */
function mcpToolsOf(
  grant: McpChildGrant,
  servers: SpawnAgentToolOptions['mcp'],
): Pick<AgentSettings, 'metaTools' | 'changingMetaTools'> {
  const version = servers?.toolsVersion?.bind(servers);
  if (!servers || !version) return { metaTools: grant.tools };
  return { changingMetaTools: { version, tools: () => grant.current(servers.serverTools()) } };
}
