import type { RunResult } from '../../shared/run-result.js';

/**
 * Skate's exit statuses, one place for all of them (README, "Exit status"). Scripts and CI read 0
 * as success, so every way a run can stop short of done has a non-zero code of its own.
 */
export const EXIT = {
  /** The run completed (the model ended its turn). */
  ok: 0,
  /** An error: the model API, the executor, the sandbox, a failed demo check. */
  error: 1,
  /** The run stopped because the model repeated itself (the repetition guard). */
  repetition: 1,
  /** A usage or configuration error: a bad flag, argument or settings file. Nothing ran. */
  usage: 2,
  /** The run stopped at the turn cap (`--max-turns`) before the model was done. */
  turnCap: 3,
  /** Interrupted (Ctrl-C, SIGINT): 128 + 2, as shells report it. */
  interrupted: 130,
  /** stdout's reader went away (EPIPE): 128 + 13, as for a program killed by SIGPIPE. */
  outputClosed: 141,
} as const;

/** The exit status for how an agent run ended. */
export function exitCodeFor(status: RunResult['status']): number {
  switch (status) {
    case 'complete':
      return EXIT.ok;
    case 'loop_cap':
      return EXIT.turnCap;
    case 'cancelled':
      return EXIT.interrupted;
    case 'error':
      return EXIT.error;
    case 'repetition':
      return EXIT.repetition;
  }
}
