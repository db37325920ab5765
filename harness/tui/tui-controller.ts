import type { Message } from '../../shared/conversation.js';
import { networkFromSetting, networkLabel } from '../../shared/policy.js';
import type { RuntimeCommand } from '../../shared/runtime-command.js';
import { EXECUTE_TASK } from '../planning/planning-prompts.js';
import type { AgentBackend } from './agent-backend.js';
import { forkPoint } from './attach-origins.js';
import { describeRuntimeCommand } from './describe-runtime-command.js';
import { EngineEventFeed } from './engine-event-feed.js';
import { historyEvents } from './history-events.js';
import { costOverlay, policyOverlay } from './info-overlays.js';
import { McpLogins, mcpOverlay } from './mcp-commands.js';
import { NetworkToggle } from './network-toggle.js';
import { sessionPicks } from './session-picks.js';
import { slashCommandOffers } from './slash-command-offers.js';
import { expandTypedPrompt, type TypedPrompt } from './typed-prompt.js';
import type { UiCommand } from './ui-command.js';
import type { UiInput, UiReducer } from './ui-reducer.js';
import type { Effect, Overlay, UiState } from './ui-state.js';
import { UiTimers } from './ui-timers.js';

// Moved to the feed; still importable from here, as before.
export { EVENT_BATCH_MS } from './engine-event-feed.js';

/** The spinner and elapsed times move this often while a turn runs. */
const RUNNING_TICK_MS = 250;

export interface TuiControllerOptions {
  backend: AgentBackend;
  reduce: UiReducer;
  initial: UiState;
  now: () => number;
  /** The person asked to leave. */
  onExit: () => void;
  /** Told of every agent the UI switches to. */
  onBackend?: (backend: AgentBackend) => void;
  /** Opens the plan in $EDITOR with the UI suspended; undefined where that is not possible. */
  editPlan?: () => Promise<void>;
  /**
   * Steps out of the full-screen view and prints `state`'s conversation into the terminal's
   * scrollback; `back` returns to the view. Undefined where there is no terminal to do it on.
   */
  scrollback?: { show: (state: UiState) => void; back: () => void };
  /** The recorded conversation of the sub-agent spawn call `parentCallId` started, below session `sessionId`. */
  subAgentConversation?: (sessionId: string, parentCallId: string) => Promise<Message[]>;
}

/**
 * The impure half of the UI: feeds the reducer (keys, batched engine events,
 * timers) and carries out the effects it returns against the agent backend.
 * Everything it decides is the reducer's; it only does the I/O.
 */
export class TuiController {
  private state: UiState;
  private backend: AgentBackend;
  private readonly network = new NetworkToggle();
  private readonly timers = new UiTimers();
  private stopped = false;
  private readonly feed = new EngineEventFeed({
    later: (ms, run) => this.timers.later(ms, run),
    dispatch: (input) => this.dispatch(input),
    now: () => this.now(),
  });
  private readonly listeners = new Set<(state: UiState) => void>();
  /** Set while the conversation is shown in the terminal's scrollback: the next key comes back. */
  private aside: (() => void) | undefined;
  /** Set while a `/mcp__…` prompt is being fetched from its server: Ctrl-C cancels it. */
  private expanding: AbortController | undefined;
  /** `:mcp login` waits for a browser beside the conversation. */
  private readonly logins = new McpLogins({
    backend: () => this.backend,
    notice: (level, text) =>
      this.dispatch({ type: 'events', events: [{ type: level, agent: [], message: text }], now: this.now() }),
    flash: (text) => this.flash(text),
    changed: () => this.offerCommands(),
  });

  constructor(private readonly options: TuiControllerOptions) {
    this.state = options.initial;
    this.backend = options.backend;
  }

  get current(): UiState {
    return this.state;
  }

  get agent(): AgentBackend {
    return this.backend;
  }

  /** Calls `listener` with every new state; returns the unsubscribe. */
  listen(listener: (state: UiState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.showHistory();
    this.feed.follow(this.backend);
    this.offerCommands();
    this.feed.watchExecutors(this.backend);
    void this.refreshNetwork();
  }

  stop(): void {
    this.stopped = true;
    this.logins.stop();
    this.feed.stop();
    this.timers.clear();
  }

  dispatch = (input: UiInput): void => {
    if (this.stopped) return;
    if (this.aside && input.type === 'key') {
      // The key that brings the UI back is not a key for the UI.
      const back = this.aside;
      this.aside = undefined;
      back();
      return;
    }
    const step = this.options.reduce(this.state, input);
    const wasTicking = ticks(this.state);
    const flashBefore = this.state.flash;
    this.state = step.state;
    // A message in the status line goes when its time is up, even if nothing else happens then.
    const flash = step.state.flash;
    if (flash && flash !== flashBefore) {
      this.tickAt(flash.until);
    }
    for (const listener of this.listeners) listener(step.state);
    if (ticks(step.state) !== wasTicking)
      this.timers.setTicker(ticks(step.state), RUNNING_TICK_MS, this.tick);
    for (const effect of step.effects) this.perform(effect);
    if (step.state.exiting) this.options.onExit();
  };

  private now(): number {
    return this.options.now();
  }

  private readonly tick = (): void => this.dispatch({ type: 'tick', now: this.now() });

  /** A tick at `at` (by `now`'s clock), so what is due then shows even if nothing else happens. */
  private tickAt(at: number): void {
    // A timer can fire before `now` reaches its time (libuv counts from the loop's cached time, and a
    // busy turn makes that stale): what is due at `at` would then never show, so wait out the rest.
    this.timers.later(Math.max(0, at - this.now()), () => (this.now() < at ? this.tickAt(at) : this.tick()));
  }

  /** The agent's conversation so far (a continued, resumed or forked session), drawn as blocks. */
  private showHistory(): void {
    const backend = this.backend;
    if (backend.conversation.length > 0) {
      const events = historyEvents(
        backend.conversation,
        (message) => backend.messageRef(message),
        backend.historyNotices,
      );
      this.dispatch({ type: 'events', events, now: this.now() });
    }
  }

  private flash(text: string): void {
    this.dispatch({ type: 'flash', text, now: this.now() });
  }

  private async refreshNetwork(): Promise<void> {
    const network = await this.network.badge(this.backend);
    this.dispatch({ type: 'backend', now: this.now(), network });
  }

  private perform(effect: Effect): void {
    switch (effect.type) {
      case 'prompt':
        this.prompt(effect.text).then(
          () => {
            this.feed.flush();
            this.dispatch({ type: 'run_finished', now: this.now() });
          },
          (error: unknown) => {
            this.feed.flush();
            this.dispatch({ type: 'run_finished', now: this.now() });
            this.flash(`the run failed: ${message(error)}`);
          },
        );
        return;
      case 'interrupt':
        this.expanding?.abort();
        this.backend.interrupt();
        return;
      case 'answer':
        if (!this.backend.answer(effect.command)) this.flash('nothing was waiting for that answer any more');
        // The answer to a question about a refused host may have changed the list: the badge follows.
        else if (effect.command.type === 'ask_user_response') void this.refreshNetwork();
        return;
      case 'wake':
        this.tickAt(effect.at);
        return;
      case 'command':
        void this.run(effect.command);
        return;
      case 'load_replay':
        void this.loadReplay(effect.agent, effect.parentCallId);
        return;
      case 'cancel_agent':
        this.flash(
          this.backend.cancelBackground?.(effect.agent)
            ? `cancelling ${effect.agent}`
            : `${effect.agent} is not a running background sub-agent (Ctrl-C interrupts the whole run)`,
        );
        return;
    }
  }

  /** Reads a sub-agent's session log for its replay; what went wrong is shown in the replay itself. */
  private async loadReplay(agent: string, parentCallId: string | undefined): Promise<void> {
    const sessionId = this.backend.sessionId;
    const done = (loaded: { conversation: Message[] } | { error: string }): void =>
      this.dispatch({ type: 'replay_loaded', agent, ...loaded, now: this.now() });
    if (sessionId === undefined || !this.options.subAgentConversation) {
      return done({ error: `no session log to replay ${agent} from (this UI keeps none: --no-session)` });
    }
    if (parentCallId === undefined) return done({ error: `${agent} has not started its first turn yet` });
    try {
      done({ conversation: await this.options.subAgentConversation(sessionId, parentCallId) });
    } catch (error) {
      done({ error: `cannot replay ${agent}: ${message(error)}` });
    }
  }

  /** One prompt as typed: expanded (MCP prompt command, resource mentions), then sent; an error is a notice. */
  private async prompt(text: string): Promise<void> {
    const controller = new AbortController();
    this.expanding = controller;
    let typed: TypedPrompt;
    try {
      typed = await expandTypedPrompt(text, this.backend, controller.signal);
    } finally {
      this.expanding = undefined;
    }
    if (typed.kind === 'error') {
      this.dispatch({
        type: 'events',
        events: [{ type: 'error', agent: [], message: typed.error }],
        now: this.now(),
      });
      return;
    }
    if (controller.signal.aborted) return;
    await this.backend.prompt(typed.text, typed.options);
  }

  /** Tells the reducer what completion offers after a `/`: the slash aliases and the agent's MCP prompts. */
  private offerCommands(): void {
    this.dispatch({ type: 'slash_commands', commands: slashCommandOffers(this.backend) });
  }

  /** Applies a state-changing command; a new agent (plan, execute, fork) replaces the one driven. */
  private async apply(command: RuntimeCommand, retype?: string): Promise<void> {
    const before = this.backend;
    const next = await before.apply(command);
    if (next !== before) {
      this.backend = next;
      this.feed.follow(next);
      this.offerCommands();
      this.options.onBackend?.(next);
      // The agent left behind (its session stays on disk) must not keep an executor running.
      void before
        .close()
        .catch((error: unknown) => this.flash(`closing the previous agent: ${message(error)}`));
    }
    const network = await this.network.badge(next);
    this.dispatch({
      type: 'backend',
      now: this.now(),
      model: next.model,
      activity: next.activity.kind,
      network,
      approval: next.approval,
      ...(next.policy !== undefined && { policy: next.policy.name }),
      ...(next.sessionId !== undefined && { sessionId: next.sessionId }),
      reset: next !== before || command.type === 'clear' || command.type === 'resume',
      ...(retype !== undefined && { retype }),
    });
    if (next !== before || command.type === 'resume') this.showHistory();
  }

  private async run(command: UiCommand): Promise<void> {
    try {
      switch (command.type) {
        case 'quit':
          return;
        case 'backend':
          await this.whileBusy(`${describeRuntimeCommand(command.command)}…`, () =>
            this.apply(command.command),
          );
          this.flash(`${describeRuntimeCommand(command.command)}: done`);
          if (command.command.type === 'set_activity' && command.command.activity === 'execute') {
            // Executing the plan starts executing it, as `skate execute` does.
            this.dispatch({ type: 'submit', text: EXECUTE_TASK, now: this.now() });
          }
          return;
        case 'toggle_network': {
          const wanted = this.network.next((await this.backend.network()).mode);
          const label = networkLabel(networkFromSetting(wanted));
          await this.whileBusy(`network ${label}: restarting the executor…`, () =>
            this.apply({ type: 'set_network', network: wanted }),
          );
          this.flash(`network ${label}`);
          return;
        }
        case 'edit_plan':
          if (!this.options.editPlan) return this.flash('no editor available here');
          await this.options.editPlan();
          return;
        case 'scrollback':
          return this.showScrollback();
        case 'sessions':
          return await this.openSessionPicker();
        case 'fork_focused':
          return await this.forkFocused();
        case 'policy':
          return this.showOverlay(await policyOverlay(this.backend));
        case 'cost':
          return this.showOverlay(await costOverlay(this.backend, this.state));
        case 'mcp':
          return this.showOverlay(await mcpOverlay(this.backend));
        case 'mcp_login':
          return await this.logins.login(command.server, command.browser);
        case 'mcp_logout':
          return await this.logins.logout(command.server);
        default:
          this.flash(`:${command.type.replace('_', ' ')} is not in the terminal UI yet`);
      }
    } catch (error) {
      const what = command.type === 'backend' ? describeRuntimeCommand(command.command) : command.type;
      this.flash(`${what} failed: ${message(error)}`);
    }
  }

  /** Shows `text` in the status bar for exactly as long as `work` runs. */
  private async whileBusy(text: string, work: () => Promise<void>): Promise<void> {
    this.dispatch({ type: 'busy', text, now: this.now() });
    try {
      await work();
    } finally {
      this.dispatch({ type: 'busy', now: this.now() });
    }
  }

  /** The conversation in the terminal's scrollback until a key is pressed; the view meanwhile keeps its state. */
  private showScrollback(): void {
    const scrollback = this.options.scrollback;
    if (!scrollback) {
      this.flash('no terminal scrollback here');
      return;
    }
    scrollback.show(this.state);
    this.aside = () => {
      scrollback.back();
      this.flash('back from the scrollback');
    };
  }

  private async openSessionPicker(): Promise<void> {
    const picks = await sessionPicks(this.backend.workspace, this.backend.sessionId);
    this.showOverlay({ type: 'sessions', sessions: picks, selected: 0 });
  }

  /** `:fork`: a new agent on a new session branching where the focused block's message is in the log. */
  private async forkFocused(): Promise<void> {
    const { blocks, focus } = this.state;
    const block = blocks.find((each) => each.id === focus);
    if (!block) return this.flash(':fork needs a focused block ([ or ])');
    const point = forkPoint(blocks, block);
    if ('error' in point) return this.flash(`cannot fork there: ${point.error}`);
    this.flash('forking…');
    await this.apply({ type: 'fork', atEventId: point.atEventId }, point.retype);
    this.flash(
      point.retype !== undefined
        ? 'forked before that prompt: edit it and press Enter'
        : `forked into session ${this.backend.sessionId?.slice(0, 13) ?? ''}`,
    );
  }

  private showOverlay(overlay: Overlay): void {
    this.dispatch({ type: 'overlay', overlay });
  }
}

/** The clock moves on screen while a turn runs (spinner, elapsed) and while the executor panel is open (uptimes). */
function ticks(state: UiState): boolean {
  return state.running || state.overlay?.type === 'executors';
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
