import type { ContentBlock, Message, StopReason } from '../../shared/conversation.js';
import type {
  AgentPath,
  EngineCommand,
  EngineEvent,
  ImageInput,
  TokenUsage,
} from '../../shared/engine-events.js';
import type { OutputLine, ToolDefinition, ToolResult } from '../../shared/tool.js';
import type { AgentHooks } from '../hooks/hook-verdict.js';
import type { ModelProvider } from '../provider/model-provider.js';
import type { LoadedTools } from './loaded-tools.js';
import type { ToolRules } from './tool-rules.js';

/** Where tool calls go: an executor (through `ExecutorClient`), never a tool in this process. */
export interface ToolHost {
  listTools(): Promise<ToolDefinition[]>;
  callTool(
    name: string,
    input: unknown,
    options: { signal?: AbortSignal; onOutput?: (line: OutputLine) => void },
  ): Promise<ToolResult>;
}

/** What a harness-side tool (spawn_agent, ask_user) gets for one call. */
export interface MetaToolCall {
  callId: string;
  input: unknown;
  signal: AbortSignal;
  /** Events of this call's own making (a sub-agent's), already tagged with their agent path. */
  emit(event: EngineEvent): void;
  /** Asks the frontend something and waits for the answer (an ask_user_request, say). */
  inbox: CommandInbox;
  agent: AgentPath;
  /** Adds token usage spent on this call's behalf (a sub-agent's) to the run's totals. */
  addUsage(usage: TokenUsage): void;
  /** Ends the run once this turn's tool results are in (a sub-agent's `complete_task`). */
  endRun(): void;
}

/** A tool the harness runs itself because it is about agents or the user, not about the machine. */
export interface MetaTool {
  definition: ToolDefinition;
  run(call: MetaToolCall): Promise<ToolResult>;
  /**
   * Its schema is offered only once loaded (`EngineContext.loadedTools`, by `tool_search`): MCP
   * tools past the schema budget. A call before that is refused with advice, and loads it.
   */
  deferred?: boolean;
}

/** Receives engine events. May throw or be gone: the engine never lets that stop a run. */
export interface Emitter {
  emit(event: EngineEvent): void;
}

/** Records the conversation as it happens (sessions implement this); every method may be slow or fail. */
export interface ConversationLog {
  userMessage(message: Message): void;
  assistantMessage(message: Message, usage: TokenUsage, model: string): void;
  toolResults(message: Message): void;
  compaction(summary: string, replacedMessages: number, usage?: TokenUsage, model?: string): void;
}

export type ApprovalMode = 'auto' | 'ask' | 'deny-writes';

/** Commands from the frontend to a running engine: answers to its requests, and interrupts. */
export interface CommandInbox {
  /** Waits for the response to `requestId` of the given type; rejects when `signal` aborts. */
  waitFor<T extends EngineCommand['type']>(
    type: T,
    requestId: string,
    signal: AbortSignal,
  ): Promise<Extract<EngineCommand, { type: T }>>;
}

/**
 * Messages that arrive while an agent works (its background sub-agents' results, issue #25): the
 * engine takes them in at each turn boundary, after the turn's tool results.
 */
export interface Arrivals {
  /** What arrived since last asked; [] for nothing. */
  take(): string[];
  /** When the model ends its turn: what is due, waiting first when the run must not end yet; [] to end. */
  settle(signal: AbortSignal): Promise<string[]>;
}

export interface EngineContext {
  provider: ModelProvider;
  tools: ToolHost;
  metaTools?: readonly MetaTool[];
  /** The deferred meta tools this agent loaded: offered after the others, in the order loaded. */
  loadedTools?: LoadedTools;
  /**
   * Meta tools that may change during a run (MCP servers announcing `tools/list_changed`): when
   * `version()` moves, the next request offers `metaTools()`, new tools appended after the others.
   */
  toolChanges?: { version(): number; metaTools(): readonly MetaTool[] };
  inbox: CommandInbox;
  /** Aborting it interrupts the run: the model stream and every running tool. */
  signal: AbortSignal;
  /** `[]` for the main agent. */
  agent?: AgentPath;
  log?: ConversationLog;
  /** The tree's hooks, bound to this agent: fired at the one tool-call path and the run's other points. */
  hooks?: AgentHooks;
  /** Messages taken in at turn boundaries (background sub-agents' results). */
  arrivals?: Arrivals;
}

export interface RunRequest {
  prompt: { text: string; images?: ImageInput[] };
  model: string;
  maxTokens: number;
  thinkingBudgetTokens?: number;
  /** Replaces the default system prompt. */
  systemPrompt?: string;
  /** Characters at the start of `systemPrompt` its siblings share (a sub-agent's dispatch prefix): a cache breakpoint goes there. */
  systemCachePrefix?: number;
  /** The project's instructions (AGENTS.md files), after the base prompt and before what is appended. */
  projectInstructions?: string;
  /** Appended to the system prompt (default or replaced). */
  appendSystemPrompt?: string;
  /** Model turns allowed before `loop_cap_reached` asks whether to go on. */
  maxTurns: number;
  /** A function is read before each turn's tool calls, so a frontend can change the mode during a run. */
  approval: ApprovalMode | (() => ApprovalMode);
  /** With `ask`: nobody is attached to answer (a headless run), so such calls are refused at once. */
  approvalUnattended?: boolean;
  /** Which calls may run at all (`--allowedTools` / `--disallowedTools`), checked before approvals. */
  toolRules?: ToolRules;
  /** Turns numbered in events from this many on: a run that continues another (a reminder). */
  turnOffset?: number;
  /** Earlier conversation, for resumed sessions. */
  history?: readonly Message[];
  /** The workspace the tools act on, named in the default system prompt. */
  workspace?: string;
  /** The sandbox policy's name, named in the default system prompt. */
  policyName?: string;
}

export interface RunOutcome {
  /** Why the run ended; `repetition`: stopped for repeating the same calls and results (see RepetitionGuard). */
  status: 'complete' | 'cancelled' | 'error' | 'loop_cap' | 'repetition';
  /** The text of the model's last message. */
  finalMessage: string;
  turns: number;
  toolCalls: number;
  usage: TokenUsage;
  /** The whole conversation at the end, history included. */
  messages: Message[];
  /** Why the model's last complete reply stopped (`refusal`, `max_tokens`…); frontends report it. */
  stopReason?: StopReason;
  error?: string;
  /**
   * What stopped a run that ended in error: the provider's failure kind (`authentication`,
   * `unavailable`…), `executor`, `repetition`; the runtime adds `invalid_output`.
   */
  errorCode?: string;
  /** Events the emitter failed to take (it threw); set only when there were some. */
  emitterFailures?: number;
  /** ConversationLog calls that failed; set only when there were some. */
  logFailures?: number;
}

export type { ContentBlock };
