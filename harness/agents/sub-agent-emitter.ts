import type { EngineEvent } from '../../shared/engine-events.js';
import type { Emitter } from '../engine/engine-types.js';

/**
 * Carries a sub-agent's events to its parent's emitter. The sub-agent's
 * engine already tags them with its agent path; this marks its turns and tool
 * calls with the spawning call's id (a grandchild's keep their own), and turns the
 * requests only a person could answer into notes: a sub-agent answers its own
 * (its inbox stops at the turn cap), and a frontend must not answer them too.
 */
export function createSubAgentEmitter(emit: (event: EngineEvent) => void, parentCallId: string): Emitter {
  return {
    emit(event) {
      switch (event.type) {
        case 'turn_start':
        case 'tool_call_start':
          emit(event.parentCallId === undefined ? { ...event, parentCallId } : event);
          return;
        case 'loop_cap_reached':
          emit({
            type: 'warn',
            agent: event.agent,
            message: `sub-agent stopped at its turn cap (${event.iterations} turns)`,
          });
          return;
        case 'approval_request':
        case 'ask_user_request':
          // Never offered to sub-agents (approvals are 'auto', ask_user is not a tool of theirs).
          emit({
            type: 'warn',
            agent: event.agent,
            message: `sub-agent made a ${event.type}, which nobody answers`,
          });
          return;
        default:
          emit(event);
      }
    },
  };
}
