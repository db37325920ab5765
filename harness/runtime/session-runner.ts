import type { DispatchRecord } from '../../shared/dispatch-telemetry.js';
import type { AgentDiffStore } from '../agents/agent-diff-store.js';
import type { AgentIds } from '../agents/agent-ids.js';
import type { BackgroundAgents } from '../agents/background-agents.js';
import { filterToolHost } from '../agents/filtered-tool-host.js';
import { createSubAgentInbox } from '../agents/sub-agent-inbox.js';
import { type Compacted, Engine } from '../engine/engine.js';
import type { CommandInbox, Emitter, EngineContext, MetaTool, ToolHost } from '../engine/engine-types.js';
import type { AgentHooks } from '../hooks/hook-verdict.js';
import type { ModelProvider } from '../provider/model-provider.js';
import type { AgentRunResult, PromptOptions } from './agent-run-result.js';
import type { AgentSettings } from './agent-settings.js';
import { appendedSystemPrompt, type HarnessToolsInput, harnessTools } from './harness-tools.js';
import type { SessionConversation } from './session-conversation.js';
import type { SessionExecutor } from './session-executor.js';
import type { SessionNetwork } from './session-network.js';
import type { ExecutorView, StartedAgent } from './start-agent.js';
import { type StructuredRunHost, structuredRun } from './structured-run.js';

/** The parts of an agent its runs are built from. */
export interface SessionRunnerParts {
  settings: AgentSettings;
  provider: ModelProvider;
  instructions: StartedAgent['instructions'];
  view: ExecutorView;
  executor: SessionExecutor;
  session: SessionConversation;
  networking: SessionNetwork;
  background: BackgroundAgents | undefined;
  agentIds: AgentIds;
  worktrees: AgentDiffStore;
  /** Where the frontend's answers arrive; undefined when nobody answers (a sub-agent). */
  inbox: CommandInbox | undefined;
  hooks: AgentHooks | undefined;
  emitter: Emitter;
  /** Every dispatch of the agent's direct children, in the order they ended. */
  dispatches: readonly DispatchRecord[];
  /** The model of the next turns (`setModel` changes it). */
  model(): string;
  /** Starts a sub-agent; passed in (it is `createAgentSession`) so this module does not import it. */
  startChild: HarnessToolsInput['startChild'];
}

/**
 * An agent's engine runs, one at a time: what each is given (the request, the executor's tools
 * as the settings filter and wrap them, the harness's own tools, hooks, the session log,
 * background arrivals) and what a run does before and after the engine. Apart from
 * `AgentSession`, which says when a run may start, so that assembling a run reads in one place.
 */
export class SessionRunner implements StructuredRunHost {
  private readonly engine = new Engine();
  /** Harness tools offered for the current run only (`structured_output`). */
  private runTools: MetaTool[] = [];
  /** The harness's own tools offered to the current run: calls of these never reach the executor. */
  private metaToolNames: ReadonlySet<string> = new Set();
  /** The run (or compaction) in progress: one at a time. */
  private running: { controller: AbortController; done: Promise<unknown> } | undefined;

  constructor(private readonly parts: SessionRunnerParts) {}

  get maxTurns(): number {
    return this.parts.settings.maxTurns;
  }

  /** Whether a run (or compaction) is in progress. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** The signal of the run in progress, if any. */
  get signal(): AbortSignal | undefined {
    return this.running?.controller.signal;
  }

  /**
   * A prompt's run (the caller checked none is in progress): with an output schema, the
   * structured run around plain runs.
   */
  async prompt(text: string, options: PromptOptions): Promise<AgentRunResult> {
    const controller = new AbortController();
    const done = options.outputSchema
      ? structuredRun(this, text, options, options.outputSchema, controller.signal)
      : this.run(text, options, controller.signal);
    this.running = { controller, done };
    try {
      return await done;
    } finally {
      this.running = undefined;
    }
  }

  /** Summarises the older conversation now (the caller checked no run is in progress). */
  async compact(): Promise<Compacted> {
    const { settings, session, emitter } = this.parts;
    const controller = new AbortController();
    const run = this.engine.compactNow(
      this.context(controller.signal),
      { model: this.parts.model(), maxTokens: settings.model.maxTokens },
      session.messages,
      emitter,
    );
    this.running = { controller, done: run };
    try {
      const result = await run;
      session.messages = result.messages;
      return result.status;
    } finally {
      this.running = undefined;
    }
  }

  /** Aborts the run in progress, if any: its model stream, tool calls and questions. */
  abort(): void {
    this.running?.controller.abort();
  }

  /** Resolves when the run in progress (if any) has ended. */
  async whenIdle(): Promise<void> {
    await this.running?.done.catch(() => undefined);
  }

  offerRunTools(tools: MetaTool[]): void {
    this.runTools = tools;
  }

  /** Whether a call of `name` is the harness's (offered to the current run), so no executor serves it. */
  isHarnessTool(name: string): boolean {
    return this.metaToolNames.has(name);
  }

  async run(text: string, options: PromptOptions, signal: AbortSignal): Promise<AgentRunResult> {
    const { settings, session, background, dispatches } = this.parts;
    const started = performance.now();
    const dispatched = dispatches.length;
    const notes = this.parts.networking.takeNotes();
    // Background results that ended while no run was going arrive with this prompt.
    notes.push(...(background?.take() ?? []));
    notes.push(...(await session.fireStart(signal)));
    const model = this.parts.model();
    const outcome = await this.engine.run(
      this.context(settings.signal ? AbortSignal.any([signal, settings.signal]) : signal),
      {
        prompt: {
          text: notes.length > 0 ? `${notes.join('\n')}\n\n${text}` : text,
          ...(options.images && { images: options.images }),
        },
        model,
        maxTokens: settings.model.maxTokens,
        ...(settings.model.thinkingBudgetTokens && {
          thinkingBudgetTokens: settings.model.thinkingBudgetTokens,
        }),
        ...(settings.systemPrompt && { systemPrompt: settings.systemPrompt }),
        ...(settings.systemPrompt &&
          settings.systemCachePrefix !== undefined && { systemCachePrefix: settings.systemCachePrefix }),
        ...(this.parts.instructions.text && { projectInstructions: this.parts.instructions.text }),
        ...(appendedSystemPrompt(settings) && {
          appendSystemPrompt: appendedSystemPrompt(settings),
        }),
        maxTurns: options.maxTurns ?? settings.maxTurns,
        ...(options.turnOffset && { turnOffset: options.turnOffset }),
        ...(settings.toolRules && { toolRules: settings.toolRules }),
        approval: () => settings.approval,
        // Read only where a call asks: under `ask`, or when a PreToolUse hook asks whatever the mode.
        ...(settings.approvalUnattended && { approvalUnattended: true }),
        workspace: this.parts.view.workspace,
        policyName: this.parts.view.policyName,
        ...(session.messages.length > 0 && { history: session.messages }),
      },
      this.parts.emitter,
    );
    session.messages = outcome.messages;
    const waitAtEnd = settings.subagents?.background?.waitAtEnd === true;
    if (background && (outcome.status === 'cancelled' || (waitAtEnd && outcome.status !== 'complete'))) {
      // A run cut short takes its background children with it (an interrupt cancelled them already):
      // their ends come before its result, which counts them.
      background.cancelAll();
      await background.idle();
    }
    // A run's result means its events are in the log: a transcript or a resume read right after sees them.
    await session.log.writer?.flush();
    session.title(text, { provider: this.parts.provider, model });
    return {
      ...outcome,
      model,
      sessionId: session.log.sessionId,
      durationMs: Math.round(performance.now() - started),
      ...(dispatches.length > dispatched && { dispatches: dispatches.slice(dispatched) }),
    };
  }

  /** The names of the harness's own tools, unfiltered (without the current run's). */
  harnessToolNames(): string[] {
    const { settings } = this.parts;
    return [
      ...(settings.changingMetaTools?.tools() ?? []),
      ...(settings.metaTools ?? []),
      ...this.ownMetaTools(),
    ].map((tool) => tool.definition.name);
  }

  private toolHost(): ToolHost {
    const { settings, executor } = this.parts;
    const host = settings.tools ? filterToolHost(executor.client, settings.tools) : executor.client;
    return settings.wrapTools ? settings.wrapTools(host) : host;
  }

  private context(signal: AbortSignal): EngineContext {
    const { settings, session, background, hooks } = this.parts;
    const metaTools = this.metaTools();
    this.metaToolNames = new Set(metaTools.map((tool) => tool.definition.name));
    return {
      provider: this.parts.provider,
      tools: this.toolHost(),
      metaTools,
      loadedTools: session.loadedTools,
      ...((settings.mcp || settings.changingMetaTools) && {
        toolChanges: {
          version: () => (settings.mcp?.toolsVersion() ?? 0) + (settings.changingMetaTools?.version() ?? 0),
          metaTools: () => {
            const tools = this.metaTools();
            this.metaToolNames = new Set(tools.map((tool) => tool.definition.name));
            return tools;
          },
        },
      }),
      inbox: this.parts.inbox ?? createSubAgentInbox(),
      signal,
      ...(hooks && { hooks }),
      ...(settings.agent && { agent: settings.agent }),
      ...(session.log.log && { log: session.engineLog() }),
      ...(background && { arrivals: this.arrivals(background) }),
    };
  }

  /** Background results into the run at turn boundaries; a headless run waits for them before it ends. */
  private arrivals(background: BackgroundAgents): NonNullable<EngineContext['arrivals']> {
    const waitAtEnd = this.parts.settings.subagents?.background?.waitAtEnd === true;
    return {
      take: () => background.take(),
      settle: (signal) => background.settle(signal, waitAtEnd),
    };
  }

  /**
   * The harness's tools: the settings' own (always offered: a sub-agent's
   * complete_task), then spawn_agent (under the current policy) and ask_user,
   * unless the settings' tool filter leaves them out.
   */
  private metaTools(): MetaTool[] {
    const { settings } = this.parts;
    const offered = (tool: MetaTool): boolean => !settings.tools || settings.tools.has(tool.definition.name);
    return [
      ...(settings.changingMetaTools?.tools() ?? []),
      ...(settings.metaTools ?? []),
      ...this.runTools,
      ...this.ownMetaTools().filter(offered),
    ];
  }

  private ownMetaTools(): MetaTool[] {
    const { settings, executor, session } = this.parts;
    return harnessTools({
      settings,
      policy: executor.policy,
      provider: this.parts.provider,
      model: this.parts.model(),
      sessionLog: session.log,
      projectInstructions: this.parts.instructions.text,
      startChild: this.parts.startChild,
      worktrees: { store: this.parts.worktrees, executor: () => executor.client },
      loadedTools: session.loadedTools,
      background: this.parts.background,
      agentIds: this.parts.agentIds,
    });
  }
}
