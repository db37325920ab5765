import { EXIT } from './exit-codes.js';

/** Aborted once stdout's reader has gone; process-wide, like stdout itself. */
const closing = new AbortController();
let watching = false;
let finished = false;

/**
 * Makes a closed stdout (`skate … | head`: EPIPE on the next write) end the CLI the way it ends a
 * program killed by SIGPIPE: quietly, no stack trace, status 141. What is running stops through
 * `outputClosed()`; stderr going away is ignored, as nothing is left to tell it to.
 */
export function watchOutput(): void {
  if (watching) return;
  watching = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') process.stderr.write(`skate: cannot write the output: ${error.message}\n`);
    process.exitCode = error.code === 'EPIPE' ? EXIT.outputClosed : EXIT.error;
    closing.abort();
    if (finished) exitSoon();
  });
  process.stderr.on('error', () => undefined);
}

/** Aborted when stdout's reader went away: a command stops what it is doing and returns. */
export function outputClosed(): AbortSignal {
  return closing.signal;
}

/** The CLI's status once its command returned `code`: 141 if nobody read the output. */
export function statusAfter(code: number): number {
  finished = true;
  if (!closing.signal.aborted) return code;
  exitSoon();
  return Number(process.exitCode ?? EXIT.outputClosed);
}

/** Node keeps a broken stdout's handle open for seconds: exit once the status is set, as serve does. */
function exitSoon(): void {
  setImmediate(() => process.exit()).unref();
}
