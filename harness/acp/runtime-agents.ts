import type { Message } from '../../shared/conversation.js';
import type { EngineCommand, EngineEvent, ImageInput } from '../../shared/engine-events.js';
import type { ToolEffect } from '../../shared/tool.js';
import { planFilePath } from '../planning/plan-file.js';
import { AgentRuntimeError } from '../runtime/agent-runtime-error.js';
import { type AgentSession, createAgentSession } from '../runtime/agent-session.js';
import type { AgentSettings } from '../runtime/agent-settings.js';
import type { AcpAgentFactory, AcpAgentHandle, AcpMode } from './acp-agent-port.js';
import type { PromptOutcome } from './stop-reason.js';

/** What every ACP session's agent shares; the workspace and session come from the editor. */
export type AcpAgentSettings = Omit<
  AgentSettings,
  'workspace' | 'session' | 'events' | 'answerer' | 'activity'
>;

/** ACP sessions on the agent runtime: one `AgentSession` each, recorded like any other Skate session. */
export function createRuntimeAgents(settings: AcpAgentSettings): AcpAgentFactory {
  return {
    async open({ workspace, session }) {
      // The editor answers approvals and questions: ask_user is offered.
      const agent = await createAgentSession({ ...settings, workspace, session, answerer: 'user' });
      return RuntimeAgent.start(agent, settings.approval);
    },
  };
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
  private unsubscribe: () => void;
  private effects = new Map<string, ToolEffect>();
  mode: AcpMode = 'execute';
  /** The first agent, kept while planning. */
  private original: AgentSession | undefined;

  private constructor(
    private agent: AgentSession,
    private readonly approval: AgentSettings['approval'],
    sessionId: string,
  ) {
    this.sessionId = sessionId;
    this.unsubscribe = this.follow(agent);
  }

  static async start(agent: AgentSession, approval: AgentSettings['approval']): Promise<RuntimeAgent> {
    const id = agent.sessionId;
    if (!id) {
      await agent.close();
      throw new AgentRuntimeError('session', 'an ACP session needs a session log');
    }
    const handle = new RuntimeAgent(agent, approval, id);
    await handle.learnEffects();
    return handle;
  }

  get workspace(): string {
    return this.agent.workspace;
  }

  history(): readonly Message[] {
    return this.agent.conversation;
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async prompt(prompt: { text: string; images: ImageInput[] }): Promise<PromptOutcome> {
    const result = await this.agent.prompt(
      prompt.text,
      prompt.images.length > 0 ? { images: prompt.images } : {},
    );
    return { status: result.status, modelStopReason: result.stopReason, error: result.error };
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

  planFile(): string | undefined {
    return this.mode === 'plan' ? planFilePath(this.agent.workspace) : undefined;
  }

  async setMode(mode: AcpMode): Promise<string | undefined> {
    if (mode === this.mode) return undefined;
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
    this.unsubscribe();
    await Promise.allSettled([this.agent.close(), this.original?.close()]);
  }

  private follow(agent: AgentSession): () => void {
    return agent.subscribe((event) => {
      for (const listener of this.listeners) listener(event);
    });
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
