import type { EngineEvent } from '../../shared/engine-events.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { ExecutorClient } from '../executor-client/executor-client.js';
import {
  type ExecutorRegistry,
  type ExecutorRole,
  type ExecutorSlot,
  policySummary,
} from './executor-registry.js';

/** An agent's executor as its registry row: the agent reports what it does to it, the row follows. */
export interface ExecutorTracking {
  /** An event of the agent; `servedHere` says whether a tool of that name runs on the executor. */
  observe(event: EngineEvent, servedHere: (tool: string) => boolean): void;
  /** The executor is being replaced (a network switch). */
  restarting(): void;
  /** The replacement runs (or, without one, the switch failed and the old one stays). */
  replaced(executor: ExecutorClient | undefined, policy: ResolvedPolicy | undefined): void;
  /** The policy changed in place (an allowlist's list). */
  policy(policy: ResolvedPolicy): void;
  stopped(): void;
}

/**
 * Registers `executor` in `registry` and keeps its row in step with the process: starting until
 * it has listed its tools, restarting while a replacement starts after it died, stopped at the end.
 */
export function trackExecutor(
  registry: ExecutorRegistry,
  who: { role: ExecutorRole; name: string },
  executor: ExecutorClient,
  policy: ResolvedPolicy | undefined,
): ExecutorTracking {
  const slot = registry.add({
    ...who,
    pid: executor.pid,
    state: 'starting',
    policy: policy && policySummary(policy),
  });
  let current = executor;
  let done = false;
  watch(slot, executor, () => current === executor && !done);
  return {
    observe: (event, servedHere) => slot.observe(event, servedHere),
    restarting: () => slot.update({ state: 'restarting' }),
    replaced: (next, nextPolicy) => {
      if (!next) {
        slot.update({ state: 'ready' });
        return;
      }
      current = next;
      slot.update({ pid: next.pid, state: 'ready', policy: nextPolicy && policySummary(nextPolicy) });
      watch(slot, next, () => current === next && !done);
    },
    policy: (next) => slot.update({ policy: policySummary(next) }),
    stopped: () => {
      done = true;
      slot.stopped();
    },
  };
}

function watch(slot: ExecutorSlot, executor: ExecutorClient, live: () => boolean): void {
  void executor.whenStarted().then(() => {
    if (live()) slot.update({ state: 'ready', pid: executor.pid });
  });
  executor.onExit((_exit, expected, replacement) => {
    if (expected || !live()) return;
    if (!replacement) {
      slot.update({ state: 'stopped' });
      return;
    }
    slot.update({ state: 'restarting' });
    void replacement.then(() => {
      if (live()) slot.update({ state: 'ready', pid: executor.pid });
    });
  });
}
