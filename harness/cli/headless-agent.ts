import { traceStart } from '../start-trace.js';
import { note } from './note.js';
import type { HeadlessRun } from './run-headless.js';

/**
 * A headless run (`skate -p`, `skate plan`, `skate execute`) started executor
 * first: the executor's boot is the longest part of a start, so it is spawned
 * before the engine, the sessions and the output are even loaded (they are
 * most of the CLI's code), and they load while it boots.
 */
export async function headlessAgent(run: Omit<HeadlessRun, 'started'>): Promise<number> {
  const { startAgent } = await import('../runtime/start-agent.js');
  let spawned!: () => void;
  const executorSpawned = new Promise<void>((resolve) => (spawned = resolve));
  const started = startAgent({ ...run.settings, onNote: note }, spawned);
  started.catch(spawned); // and runHeadless reports the failure
  await executorSpawned;
  const { runHeadless } = await import('./run-headless.js');
  traceStart('cli: frontend loaded');
  return runHeadless({ ...run, started });
}
