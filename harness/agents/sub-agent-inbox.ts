import type { EngineCommand } from '../../shared/engine-events.js';
import type { CommandInbox } from '../engine/engine-types.js';

/**
 * The inbox of a sub-agent, which has nobody to ask: at its turn cap it
 * stops at once; anything else it might wait for is refused at once, so a
 * sub-agent can never hang on a question.
 */
export function createSubAgentInbox(): CommandInbox {
  return {
    waitFor<T extends EngineCommand['type']>(
      type: T,
      requestId: string,
    ): Promise<Extract<EngineCommand, { type: T }>> {
      if (type === 'loop_decision') {
        const stop: EngineCommand = { type: 'loop_decision', requestId, decision: 'stop' };
        return Promise.resolve(stop as Extract<EngineCommand, { type: T }>);
      }
      return Promise.reject(new Error(`a sub-agent has nobody to answer a ${type}`));
    },
  };
}
