import type { Message } from '../../shared/conversation.js';
import type { EngineEvent } from '../../shared/engine-events.js';
import type { AgentIds } from '../agents/agent-ids.js';
import type { ConversationLog } from '../engine/engine-types.js';
import { LoadedTools } from '../engine/loaded-tools.js';
import { isNotableHookDecision } from '../hooks/hook-decision-line.js';
import type { AgentHooks } from '../hooks/hook-verdict.js';
import type { ModelProvider } from '../provider/model-provider.js';
import type { SessionSettings } from './agent-settings.js';
import type { LoggedMessage, MessageRef } from './logged-message.js';
import { openSessionLog, type SessionLog, type SessionPlace } from './open-session-log.js';
import { refLog } from './ref-log.js';
import { SessionTitler } from './session-titler.js';

/** How a session's first run began, for its SessionStart hook. */
type SessionStartSource = 'startup' | 'resume' | 'clear';

export interface SessionConversationOptions {
  /** This agent's view of the tree's hooks; undefined when none run. */
  hooks: AgentHooks | undefined;
  emit(event: EngineEvent): void;
  /** Raised past each opened log's highest sub-agent ids. */
  agentIds: AgentIds;
  /** Ask for a title after a session's first run (`titleSessions`). */
  titleSessions: boolean;
}

/**
 * The session an agent records into and the conversation it holds: replaced whole on clear and
 * resume, titled after its first run, with the SessionStart/SessionEnd hooks at its ends. Apart
 * from `AgentSession` so that everything a session switch must reset lives in one place.
 */
export class SessionConversation {
  // These four are set by `adopt`, from the constructor and on each switch.
  log!: SessionLog;
  /** The conversation so far (each run's outcome replaces it). */
  messages!: Message[];
  /** MCP tools loaded by `tool_search`: kept for the session, read back from its history on resume. */
  loadedTools!: LoadedTools;
  /** Where each message of the conversation is in the session log, for `fork` at a message. */
  private refs!: WeakMap<Message, MessageRef>;
  private readonly logListeners = new Set<(logged: LoggedMessage) => void>();
  private readonly titler = new SessionTitler();
  /** SessionStart's source for the next run, until it has fired for this session. */
  private startSource: SessionStartSource | undefined;

  constructor(
    log: SessionLog,
    kind: SessionSettings['kind'],
    private readonly options: SessionConversationOptions,
  ) {
    this.adopt(log, kind === 'continue' || kind === 'resume' ? 'resume' : 'startup');
  }

  /** Where `message` is in the session log; undefined when it was not logged. */
  messageRef(message: Message): MessageRef | undefined {
    return this.refs.get(message);
  }

  /** See `AgentSession.onMessageLogged`. */
  onMessageLogged(listener: (logged: LoggedMessage) => void): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  /**
   * The session log for the engine, remembering where each message landed and telling the
   * `onMessageLogged` listeners.
   */
  engineLog(): ConversationLog | undefined {
    const { log, writer } = this.log;
    if (!log || !writer) return log;
    return refLog(log, writer, (message, logged) => {
      this.refs.set(message, { eventId: logged.eventId, parentId: logged.parentId });
      for (const listener of this.logListeners) listener(logged);
    });
  }

  /**
   * What the conversation shows that is no message (a refusal, a hook's notable decision) goes
   * into the session log too, so a resumed or forked session shows it again where it happened.
   */
  recordNotice(event: EngineEvent): void {
    if (event.type === 'network_denied' || (event.type === 'hook_decision' && isNotableHookDecision(event)))
      this.log.notice(event);
  }

  /** After the first run of a session without a title: ask for one (`titleSessions`), once per session. */
  title(prompt: string, by: { provider: ModelProvider; model: string }): void {
    const writer = this.log.writer;
    if (!this.options.titleSessions || this.log.titled || !writer) return;
    this.log.titled = true;
    this.titler.start({ ...by, writer, messages: this.messages, prompt });
  }

  /** See `AgentSession.whenTitled`. */
  whenTitled(options: { abandon?: boolean }): Promise<void> {
    return this.titler.settled(options);
  }

  stopTitling(): Promise<void> {
    return this.titler.stop();
  }

  /** Ends this session (its SessionEnd hook, its log closed) for `session`, opened at `place`. */
  async switchTo(session: SessionSettings, place: SessionPlace): Promise<void> {
    await this.titler.stop();
    const next = await openSessionLog(session, place);
    await this.fireEnd(session.kind === 'resume' ? 'other' : 'clear');
    await this.log.close();
    this.adopt(next, session.kind === 'resume' ? 'resume' : 'clear');
  }

  /**
   * SessionStart, before a main agent's first run of a session: what its hooks add (plain stdout
   * or `additionalContext`) goes before the prompt.
   */
  async fireStart(signal: AbortSignal): Promise<string[]> {
    const { hooks } = this.options;
    const source = this.startSource;
    this.startSource = undefined;
    if (!source || !hooks?.has('SessionStart') || hooks.agent.length > 0) return [];
    const verdict = await hooks.fire('SessionStart', { source }, { signal, emit: this.options.emit });
    return verdict.context;
  }

  /** SessionEnd, when a main agent's session that started ends (closed, cleared, resumed away). */
  async fireEnd(reason: 'other' | 'clear' = 'other'): Promise<void> {
    const { hooks } = this.options;
    if (this.startSource !== undefined || !hooks?.has('SessionEnd') || hooks.agent.length > 0) return;
    // Bounded by the hooks' own timeouts; an interrupt of the run does not cut it short.
    await hooks.fire(
      'SessionEnd',
      { reason },
      { signal: new AbortController().signal, emit: this.options.emit },
    );
  }

  private adopt(log: SessionLog, start: SessionStartSource): void {
    this.log = log;
    this.startSource = start;
    this.messages = [...log.history];
    this.options.agentIds.raise(log.agentIds);
    this.loadedTools = LoadedTools.fromHistory(this.messages);
    this.refs = new WeakMap(log.historyRefs);
  }
}
