import type { Message } from '../../shared/conversation.js';
import type { EngineCommand, EngineEvent } from '../../shared/engine-events.js';
import type { ExecutorHealth } from '../../shared/executor-boot.js';
import type { NetworkPolicy, NetworkSetting, ResolvedPolicy } from '../../shared/policy.js';
import type { RuntimeCommand } from '../../shared/runtime-command.js';
import { AgentDiffStore } from '../agents/agent-diff-store.js';
import { AgentIds } from '../agents/agent-ids.js';
import { BackgroundAgents, DEFAULT_BACKGROUND_LIMIT } from '../agents/background-agents.js';
import { type CommandInboxHandle, createCommandInbox } from '../engine/command-inbox.js';
import type { Compacted } from '../engine/engine.js';
import type { ExecutorClient } from '../executor-client/executor-client.js';
import type { McpResourceServer, McpServerRow } from '../mcp/mcp-pool.js';
import type { PoolLogin, PoolLoginOptions } from '../mcp/mcp-pool-login.js';
import type { McpPromptCommand } from '../mcp/mcp-prompt-commands.js';
import type { PlacedNotice } from '../session/notices-from-events.js';
import { sessionFile } from '../session/session-paths.js';
import type { AgentRunResult, PromptOptions } from './agent-run-result.js';
import { AgentRuntimeError } from './agent-runtime-error.js';
import type { AgentSettings, SessionSettings } from './agent-settings.js';
import type { ExecutorRegistry } from './executor-registry.js';
import { LinkedAgents } from './linked-agents.js';
import type { LoggedMessage, MessageRef } from './logged-message.js';
import { SessionConversation } from './session-conversation.js';
import { SessionEvents } from './session-events.js';
import { SessionExecutor } from './session-executor.js';
import { SessionMcp } from './session-mcp.js';
import { SessionNetwork } from './session-network.js';
import { SessionRunner } from './session-runner.js';
import { type ExecutorView, type StartedAgent, startAgent } from './start-agent.js';

export type { AgentRunResult, PromptOptions } from './agent-run-result.js';
export { STRUCTURED_OUTPUT_TOOL } from './structured-run.js';

/**
 * Starts an agent: resolves the workspace once, then starts its executor
 * under its policy, its model provider and its session log at the same time.
 * What fails on the way leaves nothing running. `started` is that start when
 * the caller began it itself with `startAgent` on the same settings (the CLI
 * does, before it loads this module).
 */
export async function createAgentSession(
  settings: AgentSettings,
  started: Promise<StartedAgent> = startAgent(settings),
): Promise<AgentSession> {
  return new AgentSession(settings, await started);
}

/**
 * One agent, for every frontend: its executor (spawned under its policy,
 * replaced when the network is switched), its session log, its engine runs
 * and its sub-agents. Events go out as `EngineEvent`s (the settings' emitter
 * and `subscribe`); commands come in as `prompt`, `answer` and `apply`.
 * Its parts live in their own files (`SessionEvents`, `SessionExecutor`,
 * `SessionNetwork`, `SessionConversation`, `SessionRunner`, `SessionMcp`,
 * `LinkedAgents`): this class wires them, says when a command may run, and is
 * their one API.
 */
export class AgentSession {
  private readonly inbox: CommandInboxHandle | undefined;
  private readonly events: SessionEvents;
  private modelName: string;
  private closed = false;
  /** Worktree children's diffs waiting for `apply_agent_diff`; their directories go when this agent closes. */
  private readonly worktrees = new AgentDiffStore();
  private readonly mcp: SessionMcp;
  /** The main agent's background sub-agents; undefined for a sub-agent or without spawn_agent. */
  readonly background: BackgroundAgents | undefined;

  /** The workspace, resolved once. */
  readonly workspace: string;
  private readonly settings: AgentSettings;
  private readonly executor: SessionExecutor;
  private readonly view: ExecutorView;
  private readonly session: SessionConversation;
  private readonly instructions: StartedAgent['instructions'];
  private readonly networking: SessionNetwork;
  private readonly runner: SessionRunner;
  private readonly linked: LinkedAgents;

  /** Use `createAgentSession`. */
  constructor(settings: AgentSettings, started: StartedAgent) {
    this.settings = { ...settings, activity: started.activity };
    // Its sub-agents' ids: one counter for all its runs, continued after a resumed log's highest.
    const agentIds = new AgentIds();
    this.workspace = started.workspace;
    this.view = started.view;
    this.instructions = started.instructions;
    this.modelName = settings.model.name;
    this.inbox = settings.answerer === 'nobody' ? undefined : createCommandInbox();
    this.events = new SessionEvents(settings.agent ?? [], settings.events, {
      any: (event) => this.networking.trackCommand(event),
      own: (event) => {
        this.executor.observe(event, (name) => !this.runner.isHarnessTool(name));
        this.session.recordNotice(event);
      },
    });
    this.executor = new SessionExecutor(this.settings, started.executor, started.policy);
    this.networking = new SessionNetwork({
      settings,
      executor: this.executor,
      gate: started.networkGate,
      inbox: this.inbox?.inbox,
      emit: (event) => this.events.emitter.emit(event),
      runSignal: () => this.runner.signal,
      record: (decision) => this.session.log.writer?.append({ type: 'network_decision', ...decision }),
      assertOpen: () => this.assertOpen(),
      assertIdle: () => this.assertIdle(),
    });
    this.mcp = new SessionMcp(settings.mcp, (settings.subagents?.depth ?? 0) === 0, settings.executors);
    // This agent's view of the tree's hooks; undefined when none run.
    const hooks = settings.hooks?.forAgent({
      agent: settings.agent ?? [],
      workspace: this.workspace,
      sessionId: () => this.sessionId,
      transcriptPath: () => (this.sessionId ? sessionFile(this.workspace, this.sessionId) : undefined),
      policy: () => this.executor.policy,
      permissionMode: () =>
        this.activity.kind === 'plan'
          ? 'plan'
          : this.settings.approval === 'auto'
            ? 'bypassPermissions'
            : 'default',
    });
    this.session = new SessionConversation(started.log, settings.session.kind, {
      hooks,
      emit: (event) => this.events.emitter.emit(event),
      agentIds,
      titleSessions: settings.titleSessions === true,
    });
    const sub = settings.subagents;
    this.background =
      sub && (sub.depth ?? 0) === 0 && settings.executor.kind === 'local'
        ? new BackgroundAgents(sub.background?.limit ?? DEFAULT_BACKGROUND_LIMIT, agentIds)
        : undefined;
    this.runner = new SessionRunner({
      settings: this.settings,
      provider: started.provider,
      instructions: this.instructions,
      view: this.view,
      executor: this.executor,
      session: this.session,
      networking: this.networking,
      background: this.background,
      agentIds,
      worktrees: this.worktrees,
      inbox: this.inbox?.inbox,
      hooks,
      emitter: this.events.emitter,
      dispatches: this.events.dispatches,
      model: () => this.modelName,
      startChild: createAgentSession,
    });
    this.linked = new LinkedAgents({
      settings: this.settings,
      workspace: this.workspace,
      session: this.session,
      model: () => this.modelName,
      assertIdle: () => this.assertIdle(),
      start: createAgentSession,
    });
  }

  /** The policy the executor enforces; undefined for a remote executor, whose server chose it. */
  get policy(): ResolvedPolicy | undefined {
    return this.executor.policy;
  }

  get model(): string {
    return this.modelName;
  }

  /** The project instructions files (AGENTS.md) in the system prompt, in order. */
  get instructionFiles(): StartedAgent['instructions']['files'] {
    return this.instructions.files;
  }

  get sessionId(): string | undefined {
    return this.session.log.sessionId;
  }

  /** The last event recorded in the session log: a fork point for "as it is now"; undefined before any. */
  get lastEventId(): string | undefined {
    return this.session.log.writer?.lastEventId ?? undefined;
  }

  /** The conversation so far. */
  get conversation(): readonly Message[] {
    return this.session.messages;
  }

  get activity(): NonNullable<AgentSettings['activity']> {
    return this.settings.activity ?? { kind: 'agent' };
  }

  /** The executor's host pid (its outermost process); undefined for a remote one. */
  get executorPid(): number | undefined {
    return this.executor.client.pid;
  }

  /** Where this agent reports its executor (and agents started from it theirs), when anywhere. */
  get executors(): ExecutorRegistry | undefined {
    return this.settings.executors;
  }

  /** The agent's current executor (replaced by `setNetwork`). */
  get executorClient(): ExecutorClient {
    return this.executor.client;
  }

  /** The notices of the conversation this session was opened with (resumed, continued, forked), placed among its messages. */
  get historyNotices(): readonly PlacedNotice[] {
    return this.session.log.historyNotices;
  }

  /** Where `message` (one of `conversation`) is in the session log; undefined when it was not logged. */
  messageRef(message: Message): MessageRef | undefined {
    return this.session.messageRef(message);
  }

  /**
   * Told of each message of this agent's own conversation as it is appended
   * to the session log (not sub-agents'), after the events that showed it.
   * Returns the unsubscribe.
   */
  onMessageLogged(listener: (logged: LoggedMessage) => void): () => void {
    return this.session.onMessageLogged(listener);
  }

  /**
   * Told of the network in force after each change of it: a switch, or an answer to a network
   * question ("Allow for this session", "Never") that changed the list. Returns the unsubscribe.
   */
  onNetworkChange(listener: (network: NetworkPolicy) => void): () => void {
    return this.networking.onChange(listener);
  }

  /** Receives every event of this agent and its sub-agents; returns the unsubscribe. */
  subscribe(listener: (event: EngineEvent) => void): () => void {
    return this.events.subscribe(listener);
  }

  /** Runs the model on `text`, with the conversation so far, until it is done; one run at a time. */
  async prompt(text: string, options: PromptOptions = {}): Promise<AgentRunResult> {
    this.assertIdle();
    return this.runner.prompt(text, options);
  }

  /**
   * The MCP servers' prompts as slash commands (`/mcp__server__prompt`), for the frontends to offer
   * and expand (`expandPromptCommand`); the main agent's only (a sub-agent's task is the model's).
   */
  promptCommands(): McpPromptCommand[] {
    return this.mcp.promptCommands();
  }

  /** The servers with resources, for `@server:uri` mentions in a prompt; the main agent's only, as prompts. */
  resourceServers(): McpResourceServer[] {
    return this.mcp.resourceServers();
  }

  /** The run's MCP servers, where each comes from and its state now (failed: why and when). */
  mcpServers(): McpServerRow[] {
    return this.mcp.servers();
  }

  /** `:mcp login NAME`: the server's login (as `skate mcp login`), then it starts again with it (`loginPoolServer`). */
  async mcpLogin(name: string, options: PoolLoginOptions): Promise<PoolLogin> {
    return this.mcp.login(name, options);
  }

  /** `:mcp logout NAME`: its tokens forgotten, its executor stopped; whether a login was kept. */
  async mcpLogout(name: string): Promise<boolean> {
    return this.mcp.logout(name);
  }

  /** A remote server's login as `skate mcp list` words it (`:mcp`); undefined for a local one. */
  async mcpLoginStatus(name: string): Promise<string | undefined> {
    return this.mcp.loginStatus(name);
  }

  /** Resolves when the run in progress (if any) has ended. */
  async whenIdle(): Promise<void> {
    await this.runner.whenIdle();
  }

  /**
   * Interrupts the run in progress: the model stream, every tool call and every question, and
   * cancels the background sub-agents (cancelling the parent cancels them).
   */
  interrupt(): void {
    this.runner.abort();
    this.background?.cancelAll();
  }

  /** Cancels one background sub-agent (a frontend's "cancel this child"); false when none such runs. */
  cancelBackground(agentId: string): boolean {
    return this.background?.cancel(agentId) ?? false;
  }

  /**
   * A frontend's answer to a request of the running engine (approval,
   * ask_user, the turn cap) or an interrupt. Returns false when nothing takes
   * it (no such request, or a sub-agent, which nobody answers). A
   * `user_prompt` is `prompt`'s, which returns the run's result.
   */
  answer(command: EngineCommand): boolean {
    if (command.type === 'interrupt') {
      const running = this.runner.busy;
      this.interrupt();
      return running;
    }
    if (command.type === 'user_prompt') return false;
    return this.inbox?.send(command) ?? false;
  }

  /** Carries out a state-changing command; resolves to the agent to drive next (a new one after fork or activity). */
  async apply(command: RuntimeCommand): Promise<AgentSession> {
    switch (command.type) {
      case 'set_model':
        this.setModel(command.model);
        return this;
      case 'compact':
        await this.compact();
        return this;
      case 'clear':
        await this.clear();
        return this;
      case 'resume':
        await this.resume(command.sessionId);
        return this;
      case 'fork':
        return this.fork(command.atEventId);
      case 'set_approval':
        this.setApproval(command.approval);
        return this;
      case 'set_network':
        await this.setNetwork(command.network);
        return this;
      case 'set_activity':
        return command.activity === 'plan' ? this.startPlanning(command.task) : this.execute(command.plan);
    }
  }

  /** The model of the next turns. */
  setModel(name: string): void {
    this.assertIdle();
    if (name === this.modelName) return;
    this.session.log.writer?.append({ type: 'model_change', from: this.modelName, to: name });
    this.modelName = name;
  }

  /** When to ask before writes and commands; a run in progress uses it from its next tool calls. */
  get approval(): AgentSettings['approval'] {
    return this.settings.approval;
  }

  /**
   * Changes the approval mode. Allowed during a run: the engine reads it
   * before each turn's tool calls. Agents started from this one (plan,
   * execute, fork) inherit it.
   */
  setApproval(mode: AgentSettings['approval']): void {
    this.assertOpen();
    this.settings.approval = mode;
  }

  /** Summarises the older conversation now. */
  async compact(): Promise<Compacted> {
    this.assertIdle();
    return this.runner.compact();
  }

  /** A new, empty conversation in a new session log, on the same executor. */
  async clear(): Promise<void> {
    await this.switchSession(this.settings.session.kind === 'none' ? { kind: 'none' } : { kind: 'new' });
  }

  /** Continues session `id` (or a unique prefix) of the workspace, on the same executor. */
  async resume(id: string): Promise<void> {
    await this.switchSession({ kind: 'resume', id });
  }

  /** A new agent (its own executor) on a new session holding this one's conversation up to `atEventId`. */
  async fork(atEventId: string): Promise<AgentSession> {
    return this.linked.fork(atEventId);
  }

  /**
   * Sets the network: from one allowlist to another the proxy's list changes at once (even
   * during a run) and the executor stays; otherwise the executor is replaced with one under the
   * same policy with the new network. The conversation stays, and the next prompt tells the
   * model. Resolves to the network now enforced.
   */
  async setNetwork(setting: NetworkSetting): Promise<NetworkPolicy> {
    return this.networking.set(setting);
  }

  /**
   * The network in force now, without asking the executor: under an allowlist it changes as
   * questions are answered ("Allow for this session", "Never"), so a frontend showing it reads it here.
   */
  get networkNow(): NetworkPolicy | undefined {
    return this.networking.now;
  }

  /**
   * The network the running executor reports; under an allowlist, the list in force now (it may
   * have changed since the executor started).
   */
  async network(): Promise<NetworkPolicy> {
    return this.networking.reported();
  }

  /** What the running executor reports about itself. */
  health(): Promise<ExecutorHealth> {
    return this.executor.client.health();
  }

  /**
   * The executor's policy, sandbox and workspace: for a local executor what it was started
   * under, known here (no round trip before a first request); a remote one's server is asked.
   */
  async executorSummary(): Promise<Pick<ExecutorHealth, 'policy' | 'enforcement' | 'workspace'>> {
    return this.executor.summary();
  }

  /** The names of the tools the executor offers and of the harness's own tools, unfiltered. */
  async toolNames(): Promise<{ executor: string[]; harness: string[] }> {
    return {
      executor: (await this.executor.client.listTools()).map((tool) => tool.name),
      harness: this.runner.harnessToolNames(),
    };
  }

  /**
   * A planning agent on its own executor under the `plan` policy, its session
   * linked to this one. With a task, it starts planning at once (`whenIdle`
   * on it waits for that run).
   */
  async startPlanning(task?: string): Promise<AgentSession> {
    return this.linked.plan(task);
  }

  /** An agent carrying out `plan` (default: the workspace's plan file) on its own executor, linked to this one. */
  async execute(plan?: string): Promise<AgentSession> {
    return this.linked.execute(plan);
  }

  /** Interrupts any run, shuts the executor down and closes the session log; no process is left. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.interrupt();
    await this.whenIdle();
    // No background child outlives its session: each is cancelled and its executor stopped.
    await this.background?.close();
    await this.session.fireEnd();
    await this.session.stopTitling();
    await this.executor.stop();
    await this.mcp.close();
    await this.worktrees.close();
    await this.session.log.close();
  }

  /** Resolves once no title request is in flight; with `abandon`, one still running is aborted. */
  whenTitled(options: { abandon?: boolean } = {}): Promise<void> {
    return this.session.whenTitled(options);
  }

  private async switchSession(session: SessionSettings): Promise<void> {
    this.assertIdle();
    await this.session.switchTo(session, {
      workspace: this.workspace,
      model: this.modelName,
      policy: this.view.policyName,
      note: this.settings.onNote ?? (() => {}),
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new AgentRuntimeError('closed', 'this agent was closed');
  }

  private assertIdle(): void {
    this.assertOpen();
    if (this.runner.busy)
      throw new AgentRuntimeError('busy', 'a run is in progress; wait for it or interrupt it');
  }
}
