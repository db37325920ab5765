/**
 * `SKATE_TRACE_START=1`: each step of an agent's start as `skate-trace +MS cpu MS step` on stderr:
 * the time since this process began (Node's own boot included) and the CPU time it used so far,
 * up to the first bytes of the first API request. For measuring where start-up time goes; off,
 * a mark costs one boolean test.
 */
const tracing = Boolean(process.env.SKATE_TRACE_START);

/** Notes that `step` was reached, when tracing. */
export function traceStart(step: string): void {
  if (!tracing) return;
  const { user, system } = process.cpuUsage();
  const cpu = ((user + system) / 1000).toFixed(1);
  process.stderr.write(`skate-trace +${performance.now().toFixed(1)} cpu ${cpu} ${step}\n`);
}
