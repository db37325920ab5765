import type { DispatchRecord } from '../../shared/dispatch-telemetry.js';
import type { EngineEvent } from '../../shared/engine-events.js';
import type { Emitter } from '../engine/engine-types.js';

/** What an agent's parts watch in its event stream. */
export interface SessionEventWatchers {
  /** Each event, its sub-agents' too. */
  any(event: EngineEvent): void;
  /** Each event of the agent itself (not of its sub-agents). */
  own(event: EngineEvent): void;
}

/**
 * Where an agent's events go: its parts watch them first, its direct children's dispatch records
 * are kept for its runs' results, then the settings' emitter and the `subscribe`rs get every
 * one (its sub-agents' too). Apart from `AgentSession` so that this order reads in one place.
 */
export class SessionEvents {
  private readonly listeners = new Set<(event: EngineEvent) => void>();
  /** Every dispatch of this agent's direct children, in the order they ended. */
  readonly dispatches: DispatchRecord[] = [];
  /** What the engine and the agent's parts emit into. */
  readonly emitter: Emitter;

  constructor(agent: readonly string[], out: Emitter | undefined, watchers: SessionEventWatchers) {
    this.emitter = {
      emit: (event) => {
        watchers.any(event);
        if (sameAgent(event.agent, agent)) watchers.own(event);
        if (event.type === 'dispatch_end' && event.agent.length === agent.length + 1)
          this.dispatches.push(event.record);
        out?.emit(event);
        for (const listener of this.listeners) listener(event);
      },
    };
  }

  /** See `AgentSession.subscribe`. */
  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function sameAgent(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}
