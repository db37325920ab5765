import type { DispatchFailure } from '../../shared/dispatch-telemetry.js';
import type { EngineCommand, EngineEvent, TokenUsage } from '../../shared/engine-events.js';
import type { ToolDisplay } from '../../shared/tool.js';
import type { ApprovalMode } from '../engine/engine-types.js';
import { zeroUsage } from '../engine/token-usage.js';
import type { ExecutorRow } from '../runtime/executor-registry.js';
import type { MessageRef } from '../runtime/logged-message.js';
import type { UiCommand } from './ui-command.js';

/** Vim-like modes: typing the prompt, moving around, typing a `:` command. */
export type Mode = 'insert' | 'normal' | 'command';

export type ToolStatus = 'running' | 'done' | 'error' | 'blocked' | 'cancelled';

/**
 * One thing in the conversation; ids are unique and stable, so focus and
 * expansion can name them. `origin` is where the block's message is in the
 * session log, once it is there (`:fork` branches at it).
 */
export type Block =
  | { kind: 'user'; id: string; text: string; origin?: MessageRef }
  | { kind: 'assistant'; id: string; text: string; streaming: boolean; origin?: MessageRef }
  | { kind: 'thinking'; id: string; text: string; streaming: boolean; origin?: MessageRef }
  | ToolBlock
  | {
      kind: 'notice';
      id: string;
      level: 'info' | 'warn' | 'error' | 'compaction' | 'interrupted';
      text: string;
    };

export interface ToolBlock {
  kind: 'tool';
  id: string;
  callId: string;
  name: string;
  args: unknown;
  startedAt: number;
  status: ToolStatus;
  /** The last streamed output lines (at most MAX_STREAMED_LINES) and how many came in all. */
  streamed: string[];
  streamedCount: number;
  /** Its latest progress line while it runs (an MCP server's `3/5 message`), shown on its line. */
  progress?: string;
  result?: { output: string; isError: boolean; display?: ToolDisplay; durationMs: number };
  blockedReason?: string;
  origin?: MessageRef;
  /** The session event holding this call's result (the message after `origin`'s). */
  resultEventId?: string;
}

/** A sub-agent's run as the agent tree shows it. */
export interface SubAgentRun {
  path: string;
  /** The spawn_agent call that started it (from its first turn): links it to its session log. */
  parentCallId?: string;
  /** What it was asked to do (the spawn_agent call's `task`). */
  task?: string;
  /** Tasks of the spawn_agent calls it made itself, by call id, for its own children's `task`. */
  spawns?: Record<string, string>;
  status: 'running' | 'done' | 'error' | 'cancelled';
  startedAt: number;
  endedAt?: number;
  toolCalls: number;
  lastTool?: string;
  /** Its model turns so far (from its `turn_start`s). */
  turns?: number;
  tokens: TokenUsage;
  /** The agent definition it runs, when spawn_agent named one. */
  agentName?: string;
  /** Why it ended without a usable result (from its `dispatch_end`). */
  failure?: DispatchFailure;
  /** Its cached input over all its input, once it ended. */
  cacheHitRate?: number;
}

/** A question the engine waits on; the first of `pending` is the one shown. */
export type Pending =
  | {
      type: 'approval';
      requestId: string;
      callId: string;
      name: string;
      args: unknown;
      effect: 'write' | 'execute';
      choice: number;
      /** Set while the person types the reason for a rejection. */
      feedback?: string;
    }
  | {
      type: 'ask_user';
      requestId: string;
      questions: Extract<EngineEvent, { type: 'ask_user_request' }>['questions'];
      index: number;
      answers: string[];
      choice: number;
      /** The options toggled on (Space) of a question that allows several answers. */
      selected: number[];
      /** Free text, for a question without options (or after choosing "other"). */
      text: string;
      /** Set when Skate asks about a host its proxy refused: the answer is a notice in the conversation. */
      network?: { host: string; port: number };
    }
  | { type: 'loop_cap'; requestId: string; iterations: number; choice: number };

export type Overlay =
  | { type: 'help' }
  /** Shown by `Space ?` until toggled off (the leader's own which-key goes with the leader). */
  | { type: 'which_key' }
  | { type: 'agent_tree'; selected: number }
  /** `:sessions`: this workspace's sessions, newest first; Enter resumes the selected one. */
  | { type: 'sessions'; sessions: SessionPick[]; selected: number }
  /** The executor panel (`Space s`, `:executors`): live rows of `UiState.executors`; `top` as a message's. */
  | { type: 'executors'; top: number }
  /** A text shown over the conversation; `top` is its first shown line when it is longer than the room. */
  | { type: 'message'; title: string; lines: string[]; top?: number };

/** Rows the rest of the screen keeps under an overlay (status bar, prompt, a little conversation). */
export const OVERLAY_KEEP_ROWS = 8;

/** Where the conversation is scrolled, what is focused and expanded: one per conversation shown. */
export interface ConversationView {
  blocks: Block[];
  nextId: number;
  focus?: string;
  expanded: ReadonlySet<string>;
  scroll: { follow: true } | { follow: false; top: number };
}

/**
 * A sub-agent's recorded conversation, shown read-only in place of the live
 * one (agent tree, Enter) with its own view; the live conversation's view is
 * left as it was, and Esc goes back to it.
 */
export interface Replay {
  /** The sub-agent's path (`agent-1`, `agent-1/agent-2`). */
  agent: string;
  /** True until its session log is read. */
  loading: boolean;
  view: ConversationView;
}

/** One session in the `:sessions` picker. */
export interface SessionPick {
  id: string;
  title: string;
  /** ISO time of its last event (shown relative to `now`). */
  lastActivity: string;
  /** Input, output and cache tokens, sub-agents included. */
  tokens: number;
  /** The estimated cost as the session list words it ("$0.42", "<$0.01", "?"). */
  cost: string;
  /** The session the UI is in now. */
  current: boolean;
}

/** What the reducer asks the shell to do; the reducer itself does no I/O and keeps no timers. */
export type Effect =
  | { type: 'prompt'; text: string }
  | { type: 'interrupt' }
  | { type: 'answer'; command: EngineCommand }
  | { type: 'command'; command: UiCommand }
  /** Wake the reducer with a `tick` at this time (the which-key delay). */
  | { type: 'wake'; at: number }
  /** Read the session log of the sub-agent spawn call `parentCallId` started, for a replay of `agent`. */
  | { type: 'load_replay'; agent: string; parentCallId: string | undefined }
  /** Cancel a background sub-agent (the agent tree's `x`). */
  | { type: 'cancel_agent'; agent: string };

export interface UsageState {
  /** The latest model reply's usage (main agent). */
  turn?: TokenUsage;
  /** Every reply's usage in this UI session, sub-agents included. */
  total: TokenUsage;
  costUsd: number;
  context?: { usedTokens: number; windowTokens: number };
}

/** A command offered by completion when a prompt starts with `/`: a slash alias or an MCP prompt. */
export interface SlashCommandInfo {
  name: string;
  /** Its arguments, `<required> [optional]`. */
  hint: string;
  description: string;
}

export interface UiState {
  now: number;
  size: { columns: number; rows: number };
  mode: Mode;
  blocks: Block[];
  /** Monotonic counter for block ids. */
  nextId: number;
  focus?: string;
  expanded: ReadonlySet<string>;
  /** `follow` keeps the newest line at the bottom; otherwise `top` is the first shown line. */
  scroll: { follow: true } | { follow: false; top: number };
  input: { text: string; cursor: number };
  history: string[];
  /** Position while walking the history with up/down; undefined when not. */
  historyIndex?: number;
  commandLine: string;
  leader?: { startedAt: number };
  overlay?: Overlay;
  pending: Pending[];
  /** Tools whose approvals are answered "approve" without asking, for the rest of this UI session. */
  autoApprove: string[];
  /** A short message in the status line until `until` (the shell wakes the reducer then). */
  flash?: { text: string; until: number };
  /** Something the shell is doing for the person (restarting the executor): shown until it is done. */
  busy?: string;
  /** Ctrl-C asked the running turn to stop; shown until the run ends. */
  interrupting?: boolean;
  lastCtrlC?: number;
  running: boolean;
  /** Set when the person asked to leave; the shell unmounts. */
  exiting: boolean;
  model: string;
  activity: 'agent' | 'plan' | 'execute';
  /** The badge's text: `off`, `on`, `3 hosts` (an allowlist), or `unknown` before the executor answers. */
  network: string;
  /** The approval mode of the next tool calls. */
  approval: ApprovalMode;
  /** What the first screen says the agent works on and under (absent in a replay's own state). */
  about?: { workspace: string; policy: string | undefined };
  sessionId?: string;
  usage: UsageState;
  agents: Record<string, SubAgentRun>;
  /** Every executor of this session tree, as the runtime's registry reports them (the executor panel). */
  executors: readonly ExecutorRow[];
  replay?: Replay;
  /** What completion offers after a `/` (the slash aliases and the MCP servers' prompts), inert. */
  slashCommands?: readonly SlashCommandInfo[];
}

export const MAX_STREAMED_LINES = 500;
export const WHICH_KEY_DELAY_MS = 200;
export const DOUBLE_CTRL_C_MS = 1_000;
export const FLASH_MS = 2_500;

export interface InitialStateOptions {
  now: number;
  columns: number;
  rows: number;
  model: string;
  activity?: UiState['activity'];
  network?: UiState['network'];
  approval?: ApprovalMode;
  about?: UiState['about'];
  sessionId?: string;
}

export function initialUiState(options: InitialStateOptions): UiState {
  return {
    now: options.now,
    size: { columns: options.columns, rows: options.rows },
    mode: 'insert',
    blocks: [],
    nextId: 1,
    expanded: new Set(),
    scroll: { follow: true },
    input: { text: '', cursor: 0 },
    history: [],
    commandLine: '',
    pending: [],
    autoApprove: [],
    running: false,
    exiting: false,
    model: options.model,
    activity: options.activity ?? 'agent',
    network: options.network ?? 'unknown',
    approval: options.approval ?? 'auto',
    ...(options.about !== undefined && { about: options.about }),
    ...(options.sessionId !== undefined && { sessionId: options.sessionId }),
    usage: { total: zeroUsage(), costUsd: 0 },
    agents: {},
    executors: [],
  };
}
