import type { Message } from '../../shared/conversation.js';
import type { EngineCommand, EngineEvent, ImageInput } from '../../shared/engine-events.js';
import type { NetworkPolicy, NetworkSetting } from '../../shared/policy.js';
import type { ToolEffect } from '../../shared/tool.js';
import { waitingForBackground } from '../agents/background-agents.js';
import type { McpPromptCommand } from '../mcp/mcp-prompt-commands.js';
import { planFilePath } from '../planning/plan-file.js';
import { AgentRuntimeError } from '../runtime/agent-runtime-error.js';
import { type AgentSession, createAgentSession } from '../runtime/agent-session.js';
import type { AgentSettings } from '../runtime/agent-settings.js';
import { SessionError } from '../session/session-error.js';
import { loadSession } from '../session/session-reader.js';
import { resolveSession } from '../session/session-store.js';
import type { AcpAgentFactory, AcpAgentHandle, AcpMode } from './acp-agent-port.js';
import type { AcpCommand } from './prompt-command.js';
import type { PromptOutcome } from './stop-reason.js';

/** An ACP session's agent as its workspace's settings make it; the workspace and session come from the editor. */
export type AcpAgentSettings = Omit<
  AgentSettings,
  'workspace' | 'session' | 'events' | 'answerer' | 'activity'
>;

/**
 * ACP sessions on the agent runtime: one `AgentSession` each, recorded like any other Skate session.
 * `settingsFor` gives the settings of a session's workspace (the flags over your settings and that
 * workspace's own: its policy, hooks, agent files, MCP servers), never those of another.
 */
export function createRuntimeAgents(
  settingsFor: (workspace: string) => Promise<AcpAgentSettings>,
): AcpAgentFactory {
  return {
    async open({ workspace, session, mcpServers }) {
      const settings = await settingsFor(workspace);
      const stored: AgentSettings['session'] =
        session.kind === 'fork'
          ? { kind: 'resume', id: session.id, forkAt: await lastEventOf(workspace, session.id) }
          : session;
      const own = settings.mcp;
      // The client's MCP servers are this session's, beside those of the settings.
      const mcp = mcpServers?.length
        ? await (await import('../mcp/client-mcp-pool.js')).clientMcpPool({
            servers: mcpServers,
            base: own,
            workspace,
            executor: settings.executor,
            note: (line) => settings.onNote?.(line),
          })
        : own;
      // The editor answers approvals and questions: ask_user is offered.
      // A host off the allowlist becomes a question too (a form, where the client offers one).
      let agent: AgentSession;
      try {
        agent = await createAgentSession({
          ...settings,
          ...(mcp && { mcp }),
          workspace,
          session: stored,
          answerer: 'user',
          askNetwork: {},
          // A prompt turn ends with its background children's results in: their updates belong to it.
          subagents: waitingForBackground(settings.subagents),
        });
      } catch (error) {
        if (mcp !== own) await mcp?.stopAll();
        throw error;
      }
      return RuntimeAgent.start(agent, settings.approval);
    },
  };
}

/** Where a stored session ends: the point `session/fork` forks it at. */
async function lastEventOf(workspace: string, id: string): Promise<string> {
  try {
    const { file } = await resolveSession(workspace, id);
    const last = (await loadSession(file)).events.at(-1)?.id;
    if (last) return last;
  } catch (error) {
    if (error instanceof SessionError) throw new AgentRuntimeError('session', error.message);
    throw error;
  }
  throw new AgentRuntimeError('session', `there is nothing to fork yet: session ${id} has no messages`);
}

/**
 * An `AgentSession` behind the ACP port. A mode switch replaces the agent (the
 * runtime's planning and execute agents are new agents on their own
 * executors); listeners follow it, and the agent it replaced is closed, except
 * the first one while planning, which execute mode goes back to when no plan
 * was written.
 */
class RuntimeAgent implements AcpAgentHandle {
  readonly sessionId: string;
  private readonly listeners = new Set<(event: EngineEvent) => void>();
  private readonly networkListeners = new Set<() => void>();
  private unsubscribe: () => void;
  private effects = new Map<string, ToolEffect>();
  mode: AcpMode = 'execute';
  /** The first agent, kept while planning. */
  private original: AgentSession | undefined;
  /** The mode switch in progress (settled when none). */
  private switching: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    private agent: AgentSession,
    private readonly approval: AgentSettings['approval'],
    sessionId: string,
  ) {
    this.sessionId = sessionId;
    this.unsubscribe = this.follow(agent);
  }

  static async start(
    agent: AgentSession,
    approval: AgentSettings['approval'],
    mode: AcpMode = 'execute',
  ): Promise<RuntimeAgent> {
    const id = agent.sessionId;
    if (!id) {
      await agent.close();
      throw new AgentRuntimeError('session', 'an ACP session needs a session log');
    }
    const handle = new RuntimeAgent(agent, approval, id);
    handle.mode = mode;
    await handle.learnEffects();
    return handle;
  }

  get workspace(): string {
    return this.agent.workspace;
  }

  get model(): string {
    return this.agent.model;
  }

  get network(): NetworkPolicy {
    return this.agent.networkNow ?? { mode: 'off' };
  }

  async setNetwork(setting: NetworkSetting): Promise<NetworkPolicy> {
    if (this.mode === 'plan') {
      throw new AgentRuntimeError('settings', 'planning runs with the network off; switch to execute first');
    }
    return this.agent.setNetwork(setting);
  }

  history(): readonly Message[] {
    return this.agent.conversation;
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onNetworkChange(listener: () => void): () => void {
    this.networkListeners.add(listener);
    return () => this.networkListeners.delete(listener);
  }

  async prompt(prompt: { text: string; images: ImageInput[] }): Promise<PromptOutcome> {
    const result = await this.agent.prompt(
      prompt.text,
      prompt.images.length > 0 ? { images: prompt.images } : {},
    );
    return { status: result.status, modelStopReason: result.stopReason, error: result.error };
  }

  promptCommands(): McpPromptCommand[] {
    return this.agent.promptCommands();
  }

  interrupt(): void {
    this.agent.interrupt();
  }

  answer(command: Extract<EngineCommand, { requestId: string }>): void {
    this.agent.answer(command);
  }

  asksApproval(toolName: string): boolean {
    if (this.approval !== 'ask') return false;
    // spawn_agent asks unless its children are read-only (they are while planning).
    const effect =
      toolName === 'spawn_agent' ? (this.mode === 'plan' ? 'read' : 'execute') : this.effects.get(toolName);
    return effect === 'write' || effect === 'execute';
  }

  async apply(command: AcpCommand): Promise<string | undefined> {
    let summarised: number | undefined;
    const stop = this.agent.subscribe((event) => {
      if (event.type === 'compaction' && event.agent.length === 0) summarised = event.summarizedMessages;
    });
    try {
      await this.agent.apply(command);
    } finally {
      stop();
    }
    switch (command.type) {
      case 'set_model':
        return `The next turns use ${this.agent.model}.`;
      case 'clear':
        return 'Started a new conversation; the earlier one stays in its session on disk.';
      case 'compact':
        // When nothing was compacted, the engine's warning says why.
        return summarised === undefined
          ? undefined
          : `Compacted the conversation: ${summarised} older messages are now a summary.`;
    }
  }

  async fork(): Promise<AcpAgentHandle> {
    const at = this.agent.lastEventId;
    if (!at)
      throw new AgentRuntimeError('session', 'there is nothing to fork yet: the session has no messages');
    const forked = await this.agent.apply({ type: 'fork', atEventId: at });
    return RuntimeAgent.start(forked, this.approval, this.mode);
  }

  planFile(): string | undefined {
    return this.mode === 'plan' ? planFilePath(this.agent.workspace) : undefined;
  }

  /**
   * Mode switches run one at a time (each starts or closes agents), and
   * `close` waits for the one in progress, so no agent it starts is left
   * running after the session is closed.
   */
  setMode(mode: AcpMode): Promise<string | undefined> {
    const run = this.switching.then(async () => {
      if (this.closed || mode === this.mode) return undefined;
      const model = this.agent.model;
      const note = await this.switchMode(mode);
      // The model chosen stays chosen, also on the conversation from before planning.
      if (this.agent.model !== model) await this.agent.apply({ type: 'set_model', model });
      return note;
    });
    this.switching = run.catch(() => undefined);
    return run;
  }

  private async switchMode(mode: AcpMode): Promise<string | undefined> {
    if (mode === 'plan') {
      const planner = await this.agent.startPlanning();
      this.original = this.agent;
      this.replace(planner);
      this.mode = 'plan';
      await this.learnEffects();
      return undefined;
    }
    const planner = this.agent;
    let next: AgentSession;
    let note: string | undefined;
    try {
      next = await planner.execute();
      await this.original?.close();
    } catch (error) {
      if (!(error instanceof AgentRuntimeError) || error.code !== 'plan' || !this.original) throw error;
      // No plan to carry out: back to the conversation from before planning.
      next = this.original;
      note = `No plan was written (${error.message}); back to the conversation from before planning.`;
    }
    this.original = undefined;
    this.replace(next);
    this.mode = 'execute';
    await planner.close();
    await this.learnEffects();
    return note;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.switching;
    this.unsubscribe();
    await Promise.allSettled([this.agent.close(), this.original?.close()]);
  }

  private follow(agent: AgentSession): () => void {
    const events = agent.subscribe((event) => {
      for (const listener of this.listeners) listener(event);
    });
    const network = agent.onNetworkChange(() => {
      for (const listener of this.networkListeners) listener();
    });
    return () => {
      events();
      network();
    };
  }

  private replace(agent: AgentSession): void {
    this.unsubscribe();
    this.agent = agent;
    this.unsubscribe = this.follow(agent);
  }

  /** Which tools write or run commands, from the executor's own list (asked once per agent). */
  private async learnEffects(): Promise<void> {
    const tools = await this.agent.executorClient.listTools();
    this.effects = new Map(tools.map((tool) => [tool.name, tool.effect]));
  }
}
