import type { EngineEvent, EngineEventType } from '../../shared/engine-events.js';
import type { Emitter } from '../engine/engine-types.js';

export type EventOf<T extends EngineEventType> = Extract<EngineEvent, { type: T }>;

/** An emitter that keeps every event, for tests, sub-agent transcripts and replays. */
export interface CollectingEmitter extends Emitter {
  readonly events: readonly EngineEvent[];
  /** The events of one type, in order, typed. */
  ofType<T extends EngineEventType>(type: T): EventOf<T>[];
  /** The `type` of every event, in order: the shape of a run at a glance. */
  types(): EngineEventType[];
  /** The first event of a type, or undefined. */
  first<T extends EngineEventType>(type: T): EventOf<T> | undefined;
  clear(): void;
}

/** Keeps events in an array; `onEvent` sees each one as it arrives (to answer approvals, say). */
export function createCollectingEmitter(onEvent?: (event: EngineEvent) => void): CollectingEmitter {
  const events: EngineEvent[] = [];
  const isType =
    <T extends EngineEventType>(type: T) =>
    (event: EngineEvent): event is EventOf<T> =>
      event.type === type;
  return {
    events,
    emit(event) {
      events.push(event);
      onEvent?.(event);
    },
    ofType: (type) => events.filter(isType(type)),
    types: () => events.map((event) => event.type),
    first: (type) => events.find(isType(type)),
    clear() {
      events.length = 0;
    },
  };
}
