import type { Message } from '../../shared/conversation.js';
import type { EngineCommand, EngineEvent, ImageInput } from '../../shared/engine-events.js';
import type { NetworkPolicy, ResolvedPolicy } from '../../shared/policy.js';
import type { RuntimeCommand } from '../../shared/runtime-command.js';
import type { ApprovalMode } from '../engine/engine-types.js';
import type { McpResourceServer, McpServerRow } from '../mcp/mcp-pool.js';
import type { PoolLogin, PoolLoginOptions } from '../mcp/mcp-pool-login.js';
import type { McpPromptCommand } from '../mcp/mcp-prompt-commands.js';
import type { ExecutorRegistry } from '../runtime/executor-registry.js';
import type { LoggedMessage, MessageRef } from '../runtime/logged-message.js';
import type { PlacedNotice } from '../session/notices-from-events.js';

/**
 * What the terminal UI drives: the runtime's `AgentSession`
 * (prompt, interrupt, answer, apply, events), kept to what the UI uses so a
 * fake can stand in for it in tests.
 */
export interface AgentBackend {
  readonly model: string;
  readonly sessionId: string | undefined;
  /** The workspace, resolved: whose sessions `:sessions` lists. */
  readonly workspace: string;
  readonly activity: { kind: 'agent' | 'plan' | 'execute' };
  /** The approval mode of the next tool calls (`:approval` changes it). */
  readonly approval: ApprovalMode;
  /** The policy the executor enforces; undefined for a remote executor. */
  readonly policy: ResolvedPolicy | undefined;
  /** The conversation so far: shown when the UI opens on a continued session, and after resume or fork. */
  readonly conversation: readonly Message[];
  /** The notices of `conversation` (refusals, hook and network decisions), placed among its messages. */
  readonly historyNotices?: readonly PlacedNotice[];
  /** Where a message of `conversation` is in the session log (for `:fork`). */
  messageRef(message: Message): MessageRef | undefined;
  /** Every event of this agent and its sub-agents; returns the unsubscribe. */
  subscribe(listener: (event: EngineEvent) => void): () => void;
  /** Each message of this agent's conversation as it lands in the session log; returns the unsubscribe. */
  onMessageLogged(listener: (logged: LoggedMessage) => void): () => void;
  /** Runs the model on `text` (and images) until it is done; one run at a time. */
  prompt(text: string, options?: { images?: ImageInput[] }): Promise<unknown>;
  /** The MCP servers' prompts as slash commands (`/mcp__server__prompt`); none when absent. */
  promptCommands?(): McpPromptCommand[];
  /** The MCP servers with resources, whose `@server:uri` mentions a prompt attaches; none when absent. */
  resourceServers?(): McpResourceServer[];
  /** The MCP servers of this session and where each stands (`:mcp`); none when absent. */
  mcpServers?(): McpServerRow[];
  /** A remote server's login as `skate mcp list` words it; undefined for a local server. */
  mcpLoginStatus?(name: string): Promise<string | undefined>;
  /** `:mcp login NAME`: the OAuth login, then the server started again with it (its tools offered). */
  mcpLogin?(name: string, options: PoolLoginOptions): Promise<PoolLogin>;
  /** `:mcp logout NAME`: whether a login was kept (it is forgotten, the server's executor stopped). */
  mcpLogout?(name: string): Promise<boolean>;
  interrupt(): void;
  /** Cancels one running background sub-agent (`bg-1`); false when none such runs. */
  cancelBackground?(agentId: string): boolean;
  /** Answers a running engine's question (approval, ask_user, loop cap); false when nothing waits for it. */
  answer(command: EngineCommand): boolean;
  /** Carries out a state-changing command; resolves to the agent to drive next. */
  apply(command: RuntimeCommand): Promise<AgentBackend>;
  /** Where this agent and those started from it report their executors (the executor panel); none without. */
  readonly executors?: Pick<ExecutorRegistry, 'rows' | 'subscribe'> | undefined;
  /** The network the running executor reports (under an allowlist, the list in force). */
  network(): Promise<NetworkPolicy>;
  close(): Promise<void>;
}
