import type { ResolvedPolicy } from '../../shared/policy.js';
import type { AgentDiffStore } from '../agents/agent-diff-store.js';
import type { AgentIds } from '../agents/agent-ids.js';
import { createAgentStatusTool } from '../agents/agent-status-tool.js';
import { createAgentWaitTool } from '../agents/agent-wait-tool.js';
import { createApplyAgentDiffTool } from '../agents/apply-agent-diff-tool.js';
import { createAskUserTool } from '../agents/ask-user-tool.js';
import type { BackgroundAgents } from '../agents/background-agents.js';
import { createSpawnAgentTool, type SpawnAgentToolOptions } from '../agents/spawn-agent-tool.js';
import type { MetaTool } from '../engine/engine-types.js';
import type { LoadedTools } from '../engine/loaded-tools.js';
import type { ExecutorClient } from '../executor-client/executor-client.js';
import { budgetMcpTools } from '../mcp/budget-mcp-tools.js';
import { mcpResourceTools } from '../mcp/mcp-resource-tools.js';
import { PLANNING_CHILD_CONTEXT, PLANNING_PROMPT, planHandoff } from '../planning/planning-prompts.js';
import type { ModelProvider } from '../provider/model-provider.js';
import type { AgentSettings } from './agent-settings.js';
import type { SessionLog } from './open-session-log.js';

/** The user's appended instructions, then what the activity adds (the planning rules, the plan). */
export function appendedSystemPrompt(settings: AgentSettings): string | undefined {
  const activity = settings.activity ?? { kind: 'agent' };
  const addition =
    activity.kind === 'plan'
      ? PLANNING_PROMPT
      : activity.kind === 'execute'
        ? planHandoff(activity.plan, activity.planFile)
        : undefined;
  const parts = [settings.appendSystemPrompt, addition].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

export interface HarnessToolsInput {
  settings: AgentSettings;
  /** The executor's current policy; undefined for a remote executor (no sub-agents then). */
  policy: ResolvedPolicy | undefined;
  provider: ModelProvider;
  model: string;
  sessionLog: SessionLog;
  /** This agent's project instructions (AGENTS.md), passed on to its children. */
  projectInstructions?: string | undefined;
  startChild: SpawnAgentToolOptions['startChild'];
  /** This agent's worktree children's diffs, and its executor (through which they are applied). */
  worktrees?: { store: AgentDiffStore; executor(): ExecutorClient } | undefined;
  /** The MCP tools this agent loaded with `tool_search` (past the schema budget). */
  loadedTools?: LoadedTools | undefined;
  /** This agent's background children (the main agent's); with it, agent_status and agent_wait are offered. */
  background?: BackgroundAgents | undefined;
  /** This agent's sub-agent ids, kept across its runs (and continued from a resumed log). */
  agentIds?: AgentIds | undefined;
}

/**
 * The tools the runtime adds for an agent: spawn_agent (children narrowed
 * from the current policy, read-only under planning or deny-writes) while it
 * is above the depth limit, and ask_user when someone may answer, or when
 * planning (it then records its assumptions).
 */
export function harnessTools(input: HarnessToolsInput): MetaTool[] {
  const { settings, policy } = input;
  const tools: MetaTool[] = [];
  const planning = settings.activity?.kind === 'plan';
  const sub = settings.subagents;
  const depth = sub?.depth ?? 0;
  const maxDepth = sub?.maxDepth ?? 2;
  if (sub && depth < maxDepth && policy && settings.executor.kind === 'local') {
    const readOnlyChildren = Boolean(sub.readOnly) || planning || settings.approval === 'deny-writes';
    const worktrees = readOnlyChildren ? undefined : input.worktrees;
    tools.push(
      createSpawnAgentTool({
        parentPolicy: policy,
        sandbox: settings.executor.sandbox,
        providerFor: sub.providerFor ?? (() => input.provider),
        model: input.model,
        maxTokens: settings.model.maxTokens,
        thinkingBudgetTokens: settings.model.thinkingBudgetTokens,
        parentSystemPrompt: sub.parentSystemPrompt ?? settings.systemPrompt,
        projectInstructions: sub.projectInstructions ?? input.projectInstructions,
        context: sub.context ?? (planning ? PLANNING_CHILD_CONTEXT : appendedSystemPrompt(settings)),
        depth,
        maxDepth,
        ...(sub.maxTurns !== undefined && { maxTurns: sub.maxTurns }),
        ...(sub.budgetMs !== undefined && { budgetMs: sub.budgetMs }),
        ...(sub.agents && { agents: sub.agents }),
        // A planning or deny-writes agent must not write through a child (an asking one asks before each spawn).
        readOnlyChildren,
        diagnosticTools: settings.executor.diagnosticTools,
        ...(settings.toolRules && { toolRules: settings.toolRules }),
        // The main agent gives from the run's servers, a sub-agent from its own grant.
        ...((settings.mcp ?? sub.mcp) && { mcp: settings.mcp ?? sub.mcp }),
        ...(settings.executor.onSandboxNote && { onSandboxNote: settings.executor.onSandboxNote }),
        ...(settings.executor.onSandboxWarning && { onSandboxWarning: settings.executor.onSandboxWarning }),
        sessionForChild: sub.sessionForChild ?? input.sessionLog.forChild,
        parentSessionId: input.sessionLog.sessionId,
        ...(sub.onChildSpawned && { onChildSpawned: sub.onChildSpawned }),
        ...(sub.onChildExited && { onChildExited: sub.onChildExited }),
        ...(settings.hooks && { hooks: settings.hooks }),
        ...(worktrees && { worktrees: worktrees.store }),
        ...(settings.executors && { executors: settings.executors }),
        startChild: input.startChild,
        ...(input.background && { background: input.background }),
        ...(input.agentIds && { ids: input.agentIds }),
      }),
    );
    if (worktrees) {
      tools.push(
        createApplyAgentDiffTool({
          store: worktrees.store,
          policy: () => policy,
          executor: worktrees.executor,
        }),
      );
    }
    if (input.background)
      tools.push(createAgentStatusTool(input.background), createAgentWaitTool(input.background));
  }
  // MCP tools for the main agent; a sub-agent is given those its `tools` name (`mcpToolsForChild`).
  // Planning changes nothing: only the tools a server marks read-only (its policy is narrowed from the run's, not from plan).
  if (settings.mcp && depth === 0) {
    const mcpTools = settings.mcp
      .metaTools()
      .filter((tool) => !planning || tool.definition.effect === 'read');
    tools.push(...budgetMcpTools(mcpTools, settings.mcp.toolSchemaBudget, input.loadedTools));
    const resources = settings.mcp.resourceServers();
    if (resources.length > 0) tools.push(...mcpResourceTools(resources));
  }
  if (settings.answerer === 'user' || (settings.answerer === 'rules' && planning)) {
    tools.push(
      createAskUserTool({
        canAsk: settings.answerer === 'user',
        ...(settings.unansweredReason && { unanswered: settings.unansweredReason }),
      }),
    );
  }
  return tools;
}
