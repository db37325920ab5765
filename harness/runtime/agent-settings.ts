import type { AgentPath } from '../../shared/engine-events.js';
import type { McpBootServer } from '../../shared/mcp-servers.js';
import type { NetworkPolicy, NetworkSetting, ResolvedPolicy } from '../../shared/policy.js';
import type { AgentCatalogEntry } from '../agents/setup-agent-definitions.js';
import type { ChildProviderInfo, ChildSession, ChildSessionInfo } from '../agents/spawn-agent-tool.js';
import type { ApprovalMode, ConversationLog, Emitter, MetaTool, ToolHost } from '../engine/engine-types.js';
import type { ToolRules } from '../engine/tool-rules.js';
import type { ExecutorClient } from '../executor-client/executor-client.js';
import type { HookRunner } from '../hooks/hook-runner.js';
import type { McpPool } from '../mcp/mcp-pool.js';
import type { McpGrantSource } from '../mcp/mcp-tools-for-child.js';
import type { NetworkGate } from '../network/network-gate.js';
import type { ModelProvider } from '../provider/model-provider.js';
import type { SandboxMode } from '../sandbox/choose-launcher.js';
import type { NoticeEvent } from '../session/notice-line.js';
import type { ExecutorRegistry } from './executor-registry.js';

/** Where an agent's tools run. */
export type ExecutorSettings =
  | {
      kind: 'local';
      /** A policy name or file (resolved for the workspace), or a policy already resolved (a sub-agent's). */
      policy: string | ResolvedPolicy;
      sandbox: SandboxMode;
      /** Offer the `noop` and `emit_lines` diagnostic tools (tests and benchmarks). */
      diagnosticTools?: boolean;
      /** Start a new executor when this one dies unexpectedly, up to this many times. Default 0. */
      restartsOnExit?: number;
      /** Each line the executor writes to stderr. */
      onLog?(line: string): void;
      /** What the sandbox has to say (a fallback to best effort, scan limits hit). */
      onSandboxNote?(line: string): void;
      /** What the person must hear whatever the verbosity (a protected name that appeared during the run). */
      onSandboxWarning?(line: string): void;
      /** The policy's network for this run (`--network`, settings): on, off or an allowlist; the file is untouched. */
      network?: NetworkSetting | undefined;
      /** More writable roots for this run (`--add-dir`), with the workspace's protected and denied names. */
      addDirs?: readonly string[] | undefined;
      /**
       * The live allowlist and refusal channel of this agent's proxy (set by `startAgent`, one per
       * agent); absent, a sandbox under an allowlist gets a gate of its own.
       */
      networkGate?: NetworkGate | undefined;
      /** An MCP server's executor: it runs this server as its child and offers its tools (`harness/mcp/`). */
      mcpServer?: McpBootServer | undefined;
      /** How long its start (and its first tool listing) may take; the client's default otherwise. */
      startupTimeoutMs?: number | undefined;
    }
  /** An executor served by `skate executor serve`; its server chose the policy, so no sub-agents. */
  | { kind: 'remote'; url: string; token: string };

/**
 * What the agent is for. Planning runs under the shipped `plan` policy
 * (read-only but `.skate/plan.md`), offers ask_user even when nobody can
 * answer, and its sub-agents are read-only; executing carries a plan in the
 * system prompt.
 */
export type Activity =
  | { kind: 'agent' }
  | { kind: 'plan' }
  | { kind: 'execute'; plan: string; planFile: string };

export interface ModelSettings {
  /**
   * The provider, or its promise, or a function that makes it: a function is called once the
   * executor process is spawned, so loading the SDK does not delay the spawn.
   */
  provider: ModelProvider | Promise<ModelProvider> | (() => Promise<ModelProvider>);
  name: string;
  maxTokens: number;
  thinkingBudgetTokens?: number | undefined;
}

/** Which session log the agent records into. */
export type SessionSettings =
  /** Nothing is recorded. */
  | { kind: 'none' }
  /** A new session in the workspace. */
  | { kind: 'new' }
  /** The workspace's latest top-level session. */
  | { kind: 'continue' }
  /** Session `id` (or a unique prefix); with `forkAt`, a new session from its conversation up to that event. */
  | { kind: 'resume'; id: string; forkAt?: string | undefined }
  /** A log opened for it by the agent that spawned it (a sub-agent's). */
  | {
      kind: 'child';
      log: ConversationLog;
      sessionId: string;
      /** Keeps one of the child's own notices (a refusal, a hook's decision) in its log. */
      notice?: ((event: NoticeEvent) => void) | undefined;
    };

/** How this agent starts sub-agents (`spawn_agent`); each gets its own executor under a narrowed policy. */
export interface SubagentSettings {
  /** Levels of sub-agents below the main agent. Default 2. */
  maxDepth?: number;
  /** This agent's level: 0 for the main agent. */
  depth?: number;
  /** Children write nothing, whatever they ask. Planning and `deny-writes` imply it. */
  readOnly?: boolean;
  /** What children are told of this run's instructions. Default: the appended system prompt. */
  context?: string | undefined;
  /** The main agent's system prompt when it replaced the default (children are told). */
  parentSystemPrompt?: string | undefined;
  /** The project's instructions (AGENTS.md) children are given; default this agent's own. */
  projectInstructions?: string | undefined;
  /** Turn cap of each child. Default 30. */
  maxTurns?: number;
  /** Wall-clock budget of each child, in ms. Default 10 minutes. */
  budgetMs?: number;
  /** A child's provider; default this agent's. */
  providerFor?(info: ChildProviderInfo): ModelProvider;
  /** A child's session log; default one linked to this agent's, when it has one. */
  sessionForChild?(info: ChildSessionInfo): Promise<ChildSession | undefined>;
  onChildSpawned?(info: ChildExecutorInfo): void;
  onChildExited?(info: ChildExecutorInfo): void;
  /** Agent definitions (agent files) children may be started as, by name. */
  agents?: readonly AgentCatalogEntry[] | undefined;
  /**
   * Background children (`spawn_agent` with `background: true`, the main agent's only): `limit`
   * running at once (default 4); `waitAtEnd`, a run whose model ends its turn while some still run
   * waits for them and takes their results in before it ends (headless runs, whose one result must
   * include them). Without it the run ends and their results come with the next prompt.
   */
  background?: { limit?: number | undefined; waitAtEnd?: boolean | undefined } | undefined;
  /**
   * A sub-agent's MCP grant, which its own children are given from (never wider); the main agent
   * gives from the run's pool (`AgentSettings.mcp`).
   */
  mcp?: McpGrantSource | undefined;
}

/** A child executor as the spawn hooks see it. */
export interface ChildExecutorInfo {
  agentId: string;
  agent: AgentPath;
  /** The executor's host pid (its outermost process). */
  pid: number | undefined;
  policy: ResolvedPolicy;
  executor: ExecutorClient;
}

/**
 * Who answers the engine's requests: `user` (a person, or recorded answers:
 * ask_user is offered), `rules` (a frontend answers approvals and the turn
 * cap by rule, and nobody answers questions), `nobody` (a sub-agent: its turn
 * cap stops it and it is never offered ask_user).
 */
export type Answerer = 'user' | 'rules' | 'nobody';

/** Everything one agent is, passed whole to `createAgentSession`. */
export interface AgentSettings {
  /** The directory the agent works in; resolved once, when the agent starts. */
  workspace: string;
  executor: ExecutorSettings;
  /** Default `{ kind: 'agent' }`. */
  activity?: Activity;
  model: ModelSettings;
  approval: ApprovalMode;
  /** Model turns per prompt before `loop_cap_reached` asks whether to go on. */
  maxTurns: number;
  /** Replaces the default system prompt. */
  systemPrompt?: string | undefined;
  /** Characters at the start of `systemPrompt` shared with siblings (a sub-agent's dispatch prefix), cached on their own. */
  systemCachePrefix?: number | undefined;
  /** Appended to the system prompt (before what the activity adds). */
  appendSystemPrompt?: string | undefined;
  session: SessionSettings;
  /**
   * After the first prompt's run, ask a cheap model for a short title and
   * record it in the session log (the interactive UI). Off the run's path;
   * a failure records nothing. Without it (headless runs: no extra request in
   * scripts), sessions are listed under their first prompt.
   */
  titleSessions?: boolean | undefined;
  /** Offer spawn_agent; undefined for none. */
  subagents?: SubagentSettings | undefined;
  /** The hooks of the whole tree: every sub-agent gets the same ones, whatever its depth. */
  hooks?: HookRunner | undefined;
  /** The run's MCP servers: their tools are offered to the main agent; sub-agents get what their `tools` name. */
  mcp?: McpPool | undefined;
  answerer: Answerer;
  /**
   * Ask the user about connections the network proxy refuses (issue #21), with `ceiling` the
   * widest network an answer may open (serve's policy). The terminal UI, ACP and serve set it;
   * a headless run never asks, and sub-agents (answerer `nobody`) cannot.
   */
  askNetwork?: { ceiling?: NetworkPolicy | undefined } | undefined;
  /** With approval `ask`: nobody is attached to answer (a headless run), so such calls are refused at once. */
  approvalUnattended?: boolean | undefined;
  /** What the model hears when ask_user gets no answer, said as what happened; default: nobody is attached. */
  unansweredReason?: string | undefined;
  /** Every engine event of this agent and its sub-agents. `subscribe` adds more listeners. */
  events?: Emitter;
  /** This agent's path: `[]` for the main agent. */
  agent?: AgentPath;
  /** `--allowedTools` / `--disallowedTools`: which calls may run; sub-agents inherit them. */
  toolRules?: ToolRules | undefined;
  /** Offer only these executor tools (and meta tools); all when undefined. */
  tools?: ReadonlySet<string> | undefined;
  /** Wraps the agent's executor tools: `--record` writes each call, `skate replay` answers from the record. */
  wrapTools?: ((host: ToolHost) => ToolHost) | undefined;
  /** Harness tools besides spawn_agent and ask_user (a sub-agent's complete_task). */
  metaTools?: readonly MetaTool[];
  /**
   * Harness tools that may change while the agent runs, offered before `metaTools`: a sub-agent's
   * MCP tools, the same grant applied again when a server announces `tools/list_changed`.
   */
  changingMetaTools?: { version(): number; tools(): readonly MetaTool[] } | undefined;
  /** Aborting it interrupts the agent for good (a sub-agent's parent was cancelled). */
  signal?: AbortSignal;
  /** Notes for the person running it (sandbox fallbacks, an executor restarted). */
  onNote?(line: string): void;
  /**
   * Where the agent reports its executor (started, ready, restarting, stopped, the calls it ran and
   * the denials seen): the terminal UI's executor panel. Agents started from this one (sub-agents,
   * plan, execute, fork) report to the same registry.
   */
  executors?: ExecutorRegistry | undefined;
  /** Told when the agent's executor starts and after it stopped (sub-agent hooks, tests). */
  onExecutorStarted?(executor: ExecutorClient, policy: ResolvedPolicy | undefined): void;
  onExecutorStopped?(executor: ExecutorClient, policy: ResolvedPolicy | undefined): void;
}
