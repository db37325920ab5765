/** Aborted once the CLI got SIGTERM; process-wide, like the signal itself. */
const terminating = new AbortController();
let watching = false;

/**
 * Turns SIGTERM into an abort a headless run answers by stopping and still printing its result
 * line (then exiting 143), instead of dying mid-line. Installed as early as a run starts, so a
 * SIGTERM during the executor's boot is caught too. A second SIGTERM exits at once.
 */
export function watchTermination(): AbortSignal {
  if (!watching) {
    watching = true;
    process.on('SIGTERM', () => {
      if (terminating.signal.aborted) process.exit(143);
      terminating.abort();
    });
  }
  return terminating.signal;
}
