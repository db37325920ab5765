import type { EngineEvent } from '../../shared/engine-events.js';
import type { Emitter } from './engine-types.js';

/** An emitter that never throws; it counts what it failed to deliver instead. */
export interface GuardedEmitter extends Emitter {
  readonly failures: number;
}

/**
 * Wraps a frontend's emitter so that a throw (a client that went away, a bug
 * in a renderer) costs that one event and never the run.
 */
export function guardEmitter(emitter: Emitter): GuardedEmitter {
  let failures = 0;
  return {
    emit(event: EngineEvent): void {
      try {
        emitter.emit(event);
      } catch {
        failures++;
      }
    },
    get failures() {
      return failures;
    },
  };
}
