import path from 'node:path';
import {
  type AgentContext,
  type ClientCapabilities,
  type ContentBlock,
  RequestError,
  type SessionConfigOption,
  type SessionModeState,
  type SessionUpdate,
  type StopReason,
} from '@agentclientprotocol/sdk';
import type { EngineCommand, EngineEvent } from '../../shared/engine-events.js';
import { expandPromptCommand } from '../mcp/expand-prompt-command.js';
import { resolvePolicy } from '../runtime/start-executor.js';
import { readWorkspaceFile } from '../workspace-files/read-workspace-file.js';
import type { AcpAgentHandle, AcpMode } from './acp-agent-port.js';
import { configChange, configOptions, type NetworkChoice } from './config-options.js';
import { historyUpdates } from './history-updates.js';
import { approvalChoice, approvalOptions, questionAnswer, questionOptions } from './permission-options.js';
import { planEntries } from './plan-entries.js';
import { AVAILABLE_COMMANDS, availablePromptCommand, promptCommand } from './prompt-command.js';
import { promptInput } from './prompt-input.js';
import { FREE_TEXT_UNSUPPORTED, formAnswers, questionForm } from './question-form.js';
import { stopReasonFor } from './stop-reason.js';
import { createUpdateMapper, type UpdateMapper } from './update-mapper.js';

export const MODES: SessionModeState['availableModes'] = [
  {
    id: 'execute',
    name: 'Execute',
    description: 'Work in the workspace: edit files and run commands (network off), in the kernel sandbox.',
  },
  {
    id: 'plan',
    name: 'Plan',
    description:
      'Investigate read-only and write the plan to .skate/plan.md; a fresh agent on its own executor.',
  },
];

export interface AcpSessionOptions {
  /** The ACP session id: the first Skate session's id, kept across mode switches. */
  id: string;
  agent: AcpAgentHandle;
  client: AgentContext;
  capabilities: ClientCapabilities;
  /** Diagnostics for stderr (stdout is the protocol). */
  log(line: string): void;
}

type Ask = Extract<EngineEvent, { type: 'ask_user_request' }>;
type Approval = Extract<EngineEvent, { type: 'approval_request' }>;

/** A plan shown to the editor is cut here; the executing agent reads it whole (up to its own bound). */
const MAX_SHOWN_PLAN_BYTES = 256 * 1024;
/**
 * One ACP session: forwards its agent's events as `session/update`s in order,
 * turns approvals and questions into requests to the client and their answers
 * into engine commands, and runs one prompt at a time.
 */
export class AcpSession {
  readonly id: string;
  private agent: AcpAgentHandle;
  private mapper: UpdateMapper;
  private unsubscribe: () => void;
  private stopNetworkWatch: () => void;
  /** The network option as the client last had it (a response or an update); a change is sent once. */
  private announcedNetwork: string;
  /** A network change the client asked for: its response carries the options, no update is due. */
  private settingNetwork = false;
  /**
   * Updates waiting to go out, in order (a plan is read from disk first); a
   * prompt answers only after the last one. Text chunks that pile up while a
   * write is in flight go out as one.
   */
  private readonly queue: (SessionUpdate | Promise<SessionUpdate | undefined>)[] = [];
  private pumping: Promise<void> | undefined;
  /** "Always allow" / "always reject", by tool name, for the rest of the session. */
  private readonly remembered = new Map<string, 'approve' | 'reject'>();
  private running: AbortController | undefined;
  /** The last allowlist the session's tools ran under: where the network option's `allowlist` goes. */
  private allowlist: NetworkChoice['allowlist'];
  /** Said once, at the start of the next prompt (a session/new response cannot carry updates). */
  private pendingNotes: string[] = [];

  constructor(private readonly options: AcpSessionOptions) {
    this.id = options.id;
    this.agent = options.agent;
    this.mapper = this.newMapper();
    this.unsubscribe = this.agent.subscribe((event) => this.onEvent(event));
    this.announcedNetwork = this.networkShown();
    this.stopNetworkWatch = this.agent.onNetworkChange(() => {
      if (!this.settingNetwork) this.announceNetwork();
    });
  }

  get modes(): SessionModeState {
    return { currentModeId: this.agent.mode, availableModes: MODES };
  }

  get configOptions(): SessionConfigOption[] {
    return configOptions(this.agent.model, this.modes, this.networkChoice());
  }

  /** The network option as the client would see it now. */
  private networkShown(): string {
    return JSON.stringify(this.configOptions.find((option) => option.id === 'network') ?? null);
  }

  /**
   * The network changed without the client asking (a network question answered "Allow for this
   * session" or "Never", another frontend's switch): every option goes out as a
   * `config_option_update`, as the protocol wants after a change the agent made itself.
   */
  private announceNetwork(): void {
    const shown = this.networkShown();
    if (shown === this.announcedNetwork) return;
    this.announcedNetwork = shown;
    this.send({ sessionUpdate: 'config_option_update', configOptions: this.configOptions });
  }

  /** The network now and the allowlist to go back to (remembered, as `Space n` does). */
  private networkChoice(): NetworkChoice {
    const current = this.agent.network;
    if (current.mode === 'allowlist') this.allowlist = current;
    return { current, allowlist: this.allowlist };
  }

  get workspace(): string {
    return this.agent.workspace;
  }

  /** Whether a prompt (or a command given as one) is running. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Tells the client which commands a prompt may start with (after the session is known to it). */
  announceCommands(): void {
    const prompts = (this.agent.promptCommands?.() ?? []).map(availablePromptCommand);
    this.send({
      sessionUpdate: 'available_commands_update',
      availableCommands: [...AVAILABLE_COMMANDS, ...prompts],
    });
  }

  /** `session/fork`: a new agent holding this conversation as it is now (not while a prompt runs). */
  async fork(): Promise<AcpAgentHandle> {
    if (this.running)
      throw RequestError.invalidRequest(undefined, 'cannot fork while a prompt runs; cancel it first');
    return this.agent.fork();
  }

  /** Something the user must know that has no update of its own yet (unsupported MCP servers). */
  noteForNextPrompt(message: string): void {
    this.pendingNotes.push(message);
  }

  /** `session/load`: the stored conversation as updates. */
  async replay(): Promise<void> {
    for (const update of historyUpdates(this.agent.history(), this.agent.workspace)) this.send(update);
    await this.flushed();
  }

  async prompt(blocks: readonly ContentBlock[], signal: AbortSignal): Promise<StopReason> {
    if (this.running) {
      throw RequestError.invalidRequest(undefined, 'a prompt is already running in this session');
    }
    const controller = new AbortController();
    this.running = controller;
    const onAbort = (): void => this.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (const note of this.pendingNotes.splice(0)) this.send(this.userNotice(note));
      const command = promptCommand(blocks);
      if (command) return await this.runCommand(command, controller.signal);
      const [first, ...attached] = blocks;
      // `/mcp__server__prompt a b` (the first text block): the server's prompt is the turn, as in the
      // terminal UI and -p; what else was attached follows it.
      const expanded =
        first?.type === 'text'
          ? await expandPromptCommand(this.agent.promptCommands?.() ?? [], first.text, controller.signal)
          : ({ kind: 'text' } as const);
      if (expanded.kind === 'error') {
        this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: expanded.error } });
        await this.flushed();
        return controller.signal.aborted ? 'cancelled' : 'end_turn';
      }
      const extra = expanded.kind === 'prompt' ? promptInput(attached) : undefined;
      const outcome = await this.agent.prompt(
        expanded.kind === 'prompt' && extra
          ? {
              text: extra.text ? `${expanded.text}\n\n${extra.text}` : expanded.text,
              images: [...expanded.images, ...extra.images],
            }
          : promptInput(blocks),
      );
      for (const update of this.mapper.closeOpen()) this.send(update);
      await this.flushed();
      const reason = stopReasonFor(outcome);
      if (reason === undefined)
        throw RequestError.internalError(undefined, outcome.error ?? 'the run failed');
      return reason;
    } finally {
      signal.removeEventListener('abort', onAbort);
      controller.abort();
      this.running = undefined;
    }
  }

  /** `session/cancel`: interrupts the model and every tool; pending requests to the client are withdrawn. */
  cancel(): void {
    if (!this.running) return;
    this.running.abort();
    this.agent.interrupt();
  }

  /** `session/set_config_option`: the model, the mode or the network; resolves to every option's value after it. */
  async setConfigOption(configId: string, value: unknown): Promise<SessionConfigOption[]> {
    const change = configChange({ configId, value }, this.agent.model, this.modes, this.networkChoice());
    if (change.kind === 'mode') await this.setMode(change.mode);
    else if (change.kind === 'network') {
      if (this.running)
        throw RequestError.invalidRequest(undefined, 'cannot change the network while a prompt runs');
      if (this.agent.mode === 'plan')
        throw RequestError.invalidRequest(
          undefined,
          'planning runs with the network off; switch to execute first',
        );
      this.settingNetwork = true;
      try {
        await this.agent.setNetwork(change.network);
      } finally {
        this.settingNetwork = false;
      }
    } else {
      if (this.running)
        throw RequestError.invalidRequest(undefined, 'cannot switch models while a prompt runs');
      await this.agent.apply({ type: 'set_model', model: change.model });
    }
    this.announcedNetwork = this.networkShown();
    return this.configOptions;
  }

  async setMode(modeId: string): Promise<void> {
    if (modeId !== 'plan' && modeId !== 'execute') {
      throw RequestError.invalidParams(undefined, `unknown mode ${modeId}: the modes are plan and execute`);
    }
    if (this.running) throw RequestError.invalidRequest(undefined, 'cannot switch modes while a prompt runs');
    if (modeId === this.agent.mode) return;
    const note = await this.agent.setMode(modeId as AcpMode);
    // Tool calls of the new agent are numbered afresh.
    this.mapper = this.newMapper();
    this.send({ sessionUpdate: 'current_mode_update', currentModeId: this.agent.mode });
    this.announcedNetwork = this.networkShown();
    this.send({ sessionUpdate: 'config_option_update', configOptions: this.configOptions });
    if (note) this.send(this.userNotice(note));
    await this.flushed();
  }

  async close(): Promise<void> {
    this.cancel();
    this.unsubscribe();
    this.stopNetworkWatch();
    await this.agent.close();
  }

  /** A prompt that was a command (`/compact`): carried out instead of a model turn. */
  private async runCommand(
    parsed: NonNullable<ReturnType<typeof promptCommand>>,
    signal: AbortSignal,
  ): Promise<StopReason> {
    const said = parsed.ok ? await this.agent.apply(parsed.command) : parsed.error;
    if (parsed.ok && parsed.command.type === 'set_model')
      this.send({ sessionUpdate: 'config_option_update', configOptions: this.configOptions });
    if (said && !signal.aborted)
      this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: said } });
    await this.flushed();
    return signal.aborted ? 'cancelled' : 'end_turn';
  }

  private newMapper(): UpdateMapper {
    return createUpdateMapper({
      workspace: this.agent.workspace,
      asksApproval: (name) => !this.remembered.has(name) && this.agent.asksApproval(name),
      notices: this.options.capabilities.session?.notices != null,
    });
  }

  private onEvent(event: EngineEvent): void {
    for (const update of this.mapper.map(event)) this.send(update);
    switch (event.type) {
      case 'approval_request':
        this.answerApproval(event).catch((error: unknown) =>
          this.failedRequest(error, {
            type: 'approval_response',
            requestId: event.requestId,
            decision: 'reject',
            feedback: `No answer came from the editor (${describe(error)}).`,
          }),
        );
        return;
      case 'ask_user_request':
        // An empty answer tells ask_user that nobody answered.
        this.answerQuestions(event).catch((error: unknown) =>
          this.failedRequest(error, { type: 'ask_user_response', requestId: event.requestId, answers: [] }),
        );
        return;
      case 'loop_cap_reached':
        // ACP ends the turn at the limit (max_turn_requests); the user goes on with another prompt.
        this.agent.answer({ type: 'loop_decision', requestId: event.requestId, decision: 'stop' });
        return;
      case 'tool_call_result':
        if (!event.isError && event.display?.type === 'diff') this.showPlanIfWritten(event.display.path);
        return;
      default:
        return;
    }
  }

  private async answerApproval(event: Approval): Promise<void> {
    let decision = this.remembered.get(event.name);
    let feedback: string | undefined;
    if (decision === undefined) {
      await this.flushed();
      const response = await this.options.client.request(
        'session/request_permission',
        {
          sessionId: this.id,
          toolCall: this.mapper.toolCall(event.callId, event.agent),
          options: approvalOptions(event.name),
        },
        this.requestOptions(),
      );
      const choice = approvalChoice(response.outcome);
      decision = choice.decision;
      feedback = choice.feedback;
      if (choice.remember) this.remembered.set(event.name, decision);
    }
    this.agent.answer({
      type: 'approval_response',
      requestId: event.requestId,
      decision,
      ...(feedback && { feedback }),
    });
    if (decision === 'approve')
      for (const update of this.mapper.running(event.callId, event.agent)) this.send(update);
  }

  private async answerQuestions(event: Ask): Promise<void> {
    await this.flushed();
    // Skate's own question about a refused connection belongs to no ask_user call.
    const toolCallId =
      (event.network ? undefined : this.mapper.openAskUser(event.agent)) ?? `ask-${event.requestId}`;
    let answers: string[];
    if (this.options.capabilities.elicitation?.form) {
      const response = await this.options.client.request(
        'elicitation/create',
        {
          mode: 'form',
          sessionId: this.id,
          toolCallId,
          message: event.network
            ? 'Skate asks about a connection its network allowlist refused:'
            : event.questions.length === 1
              ? 'The agent asks:'
              : 'The agent asks some questions:',
          requestedSchema: questionForm(event.questions),
        },
        this.requestOptions(),
      );
      answers = formAnswers(event.questions, response);
    } else {
      answers = [];
      for (const question of event.questions) {
        const options = question.options ?? [];
        if (options.length === 0) {
          answers.push(FREE_TEXT_UNSUPPORTED);
          continue;
        }
        const response = await this.options.client.request(
          'session/request_permission',
          {
            sessionId: this.id,
            toolCall: { toolCallId, title: question.question },
            options: questionOptions(options),
          },
          this.requestOptions(),
        );
        answers.push(questionAnswer(options, response.outcome));
      }
    }
    this.agent.answer({ type: 'ask_user_response', requestId: event.requestId, answers });
  }

  /** A request to the client failed (the connection, or the client errored): the engine must not wait for it. */
  private failedRequest(error: unknown, answer: Extract<EngineCommand, { requestId: string }>): void {
    this.options.log(`a request to the client failed: ${describe(error)}`);
    this.agent.answer(answer);
  }

  /** While planning, a change to the plan file is shown as ACP plan entries. */
  private showPlanIfWritten(shownPath: string): void {
    const planFile = this.agent.planFile();
    if (!planFile || path.resolve(this.agent.workspace, shownPath) !== planFile) return;
    // Read as the planning agent may read it, never through a link or a FIFO its sandbox put there.
    const workspace = this.agent.workspace;
    this.enqueue(
      readWorkspaceFile(planFile, {
        policy: () => resolvePolicy('plan', workspace),
        within: workspace,
        maxBytes: MAX_SHOWN_PLAN_BYTES,
        overflow: 'cut',
      }).then(
        (read): SessionUpdate | undefined => {
          if (read.status === 'read')
            return { sessionUpdate: 'plan', entries: planEntries(read.data.toString('utf8')) };
          if (read.status === 'refused') this.options.log(`could not show the plan: ${read.message}`);
          return undefined;
        },
        (error: unknown) => {
          this.options.log(`could not show the plan: ${describe(error)}`);
          return undefined;
        },
      ),
    );
  }

  private userNotice(message: string): SessionUpdate {
    return this.options.capabilities.session?.notices != null
      ? { sessionUpdate: 'notice', severity: 'warning', title: message }
      : { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${message}\n\n` } };
  }

  private send(update: SessionUpdate): void {
    const last = this.queue.at(-1);
    if (last && !(last instanceof Promise) && appendText(last, update)) return;
    this.enqueue(update);
  }

  private enqueue(item: SessionUpdate | Promise<SessionUpdate | undefined>): void {
    this.queue.push(item);
    this.pumping ??= this.pump();
  }

  private async pump(): Promise<void> {
    for (let item = this.queue.shift(); item !== undefined; item = this.queue.shift()) {
      const update = await item;
      if (!update) continue;
      await this.options.client
        .notify('session/update', { sessionId: this.id, update })
        .catch((error: unknown) => this.options.log(`could not send an update: ${describe(error)}`));
    }
    this.pumping = undefined;
  }

  /** Resolves once every update queued so far has been written. */
  private async flushed(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  private requestOptions(): { cancellationSignal?: AbortSignal } {
    return this.running ? { cancellationSignal: this.running.signal } : {};
  }
}

/** Adds `next`'s text to `last` when both are text chunks of the same stream; true if it did. */
function appendText(last: SessionUpdate, next: SessionUpdate): boolean {
  if (last.sessionUpdate !== 'agent_message_chunk' && last.sessionUpdate !== 'agent_thought_chunk')
    return false;
  if (next.sessionUpdate !== last.sessionUpdate) return false;
  if (next.content.type !== 'text' || last.content.type !== 'text') return false;
  last.content.text += next.content.text;
  return true;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
