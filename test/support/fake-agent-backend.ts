import type { ApprovalMode } from '../../harness/engine/engine-types.js';
import type { LoggedMessage, MessageRef } from '../../harness/runtime/logged-message.js';
import type { AgentBackend } from '../../harness/tui/agent-backend.js';
import type { Message } from '../../shared/conversation.js';
import type { EngineCommand, EngineEvent } from '../../shared/engine-events.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { type NetworkPolicy, networkFromSetting } from '../../shared/policy.js';
import type { RuntimeCommand } from '../../shared/runtime-command.js';

/** An engine event whose `agent` may be left out (the main agent's). */
export type LooseEvent = EngineEvent extends infer E
  ? E extends EngineEvent
    ? Omit<E, 'agent'> & { agent?: string[] }
    : never
  : never;

type Script = (backend: FakeAgentBackend, text: string, signal: AbortSignal) => Promise<void>;

/** An agent backend whose runs are scripted: the UI's tests drive it as they would the runtime. */
export class FakeAgentBackend implements AgentBackend {
  model = 'claude-sonnet-4-5';
  sessionId: string | undefined = 'session-1';
  workspace = '/tmp/fake-workspace';
  approval: ApprovalMode = 'auto';
  policy: ResolvedPolicy | undefined = undefined;
  activity: { kind: 'agent' | 'plan' | 'execute' } = { kind: 'agent' };
  /** Where each message of `conversation` is, as a resumed session's log would say. */
  readonly refs = new Map<Message, MessageRef>();
  networkMode: NetworkPolicy = { mode: 'off' };
  conversation: Message[] = [];
  readonly prompts: string[] = [];
  readonly answers: EngineCommand[] = [];
  readonly applied: RuntimeCommand[] = [];
  interrupts = 0;
  private readonly listeners = new Set<(event: EngineEvent) => void>();
  private readonly logListeners = new Set<(logged: LoggedMessage) => void>();
  private controller: AbortController | undefined;
  private readonly waiting = new Map<string, (command: EngineCommand) => void>();

  constructor(private readonly script: Script = async () => {}) {}

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  messageRef(message: Message): MessageRef | undefined {
    return this.refs.get(message);
  }

  onMessageLogged(listener: (logged: LoggedMessage) => void): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  /** Says a message landed in the session log, as the runtime does after the events that showed it. */
  logged(logged: LoggedMessage): void {
    for (const listener of this.logListeners) listener(logged);
  }

  emit(event: LooseEvent): void {
    const full = { agent: [], ...event } as EngineEvent;
    for (const listener of this.listeners) listener(full);
  }

  /** Resolves with the answer to `requestId` once the UI sends it. */
  waitFor(requestId: string): Promise<EngineCommand> {
    return new Promise((resolve) => this.waiting.set(requestId, resolve));
  }

  async prompt(text: string): Promise<unknown> {
    this.prompts.push(text);
    this.controller = new AbortController();
    await this.script(this, text, this.controller.signal);
    return undefined;
  }

  interrupt(): void {
    this.interrupts++;
    this.controller?.abort();
  }

  answer(command: EngineCommand): boolean {
    this.answers.push(command);
    if (!('requestId' in command)) return false;
    const resolve = this.waiting.get(command.requestId);
    this.waiting.delete(command.requestId);
    resolve?.(command);
    return resolve !== undefined;
  }

  async apply(command: RuntimeCommand): Promise<AgentBackend> {
    this.applied.push(command);
    if (command.type === 'set_network') this.networkMode = networkFromSetting(command.network);
    if (command.type === 'set_model') this.model = command.model;
    if (command.type === 'set_approval') this.approval = command.approval;
    if (command.type === 'fork') {
      const next = new FakeAgentBackend(this.script);
      next.sessionId = `fork-at-${command.atEventId}`;
      return next;
    }
    if (command.type === 'set_activity') {
      const next = new FakeAgentBackend(this.script);
      next.activity = { kind: command.activity };
      next.sessionId = `${command.activity}-session`;
      return next;
    }
    return this;
  }

  async network(): Promise<NetworkPolicy> {
    return this.networkMode;
  }

  async close(): Promise<void> {}
}
