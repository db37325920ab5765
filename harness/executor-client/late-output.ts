/**
 * How long a call of a tool that does not stream runs before the harness watches its output: an
 * MCP call reporting progress is shown from then on (its latest line at once, the executor keeps
 * only that one unread), while a call that ends sooner costs no subscription (three frames).
 */
export const LATE_OUTPUT_MS = 400;

/**
 * Starts watching (`start`, returning its stop) once `delayMs` have passed; the returned function
 * stops it, or cancels it before it started. Lines after the call's result are not waited for.
 */
export function watchLate(start: () => () => void, delayMs = LATE_OUTPUT_MS): () => void {
  let stop: (() => void) | undefined;
  const timer = setTimeout(() => {
    stop = start();
  }, delayMs);
  return () => {
    clearTimeout(timer);
    stop?.();
  };
}
