import type { AgentBackend } from './agent-backend.js';
import type { UiEvent } from './apply-engine-events.js';
import type { UiInput } from './ui-reducer.js';

/**
 * Engine events are applied at most this often: a stream of deltas costs one render per frame, not
 * one per delta. 18 ms, not 16: with the running tick's 4 frames/s a stream stays at ≤ 60 frames/s.
 */
export const EVENT_BATCH_MS = 18;

export interface EngineEventFeedOptions {
  /** Runs `run` after `ms` on a timer its owner clears when it stops. */
  later: (ms: number, run: () => void) => void;
  dispatch: (input: UiInput) => void;
  now: () => number;
}

/** An agent's events, logged messages and executor rows on their way to the reducer, batched per frame. */
export class EngineEventFeed {
  private queue: UiEvent[] = [];
  private flushScheduled = false;
  private unsubscribe: () => void = () => {};
  private unsubscribeExecutors: () => void = () => {};
  private executorsScheduled = false;

  constructor(private readonly options: EngineEventFeedOptions) {}

  /** Follows `backend`'s events and logged messages, and no longer the previous backend's. */
  follow(backend: AgentBackend): void {
    this.unsubscribe();
    const enqueue = (event: UiEvent): void => {
      this.queue.push(event);
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      this.options.later(EVENT_BATCH_MS, () => this.flush());
    };
    // One queue for both, in the order they happen: a message is logged after the events that showed it.
    const events = backend.subscribe(enqueue);
    const logged = backend.onMessageLogged((entry) =>
      enqueue({ type: 'message_logged', agent: [], logged: entry }),
    );
    this.unsubscribe = () => {
      events();
      logged();
    };
  }

  /**
   * The executor panel's rows, from the registry the runtime feeds (the same one for every agent
   * started from this one): at most one update per frame, however many changes came.
   */
  watchExecutors(backend: AgentBackend): void {
    const registry = backend.executors;
    if (!registry) return;
    const push = (): void => this.options.dispatch({ type: 'executors', rows: registry.rows() });
    this.unsubscribeExecutors = registry.subscribe(() => {
      if (this.executorsScheduled) return;
      this.executorsScheduled = true;
      this.options.later(EVENT_BATCH_MS, () => {
        this.executorsScheduled = false;
        push();
      });
    });
    push();
  }

  /** Applies the events waiting for the next frame; done early when a run ends, so none lands after its end. */
  flush(): void {
    this.flushScheduled = false;
    if (this.queue.length === 0) return;
    const events = this.queue;
    this.queue = [];
    this.options.dispatch({ type: 'events', events, now: this.options.now() });
  }

  stop(): void {
    this.unsubscribe();
    this.unsubscribeExecutors();
  }
}
