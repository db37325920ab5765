import type { RunResult } from '../../shared/run-result.js';

/**
 * Skate's exit statuses, one place for all of them (README, "Exit status"). Scripts and CI read 0
 * as success, so every way a run can stop short of done has a non-zero code of its own.
 */
export const EXIT = {
  /** The run completed (the model ended its turn). */
  ok: 0,
  /** An error: the model API, the executor, the sandbox, a failed demo check, a crash. */
  error: 1,
  /** The run stopped because the model repeated itself (the repetition guard). */
  repetition: 1,
  /** A usage or configuration error: a bad flag, argument or settings file. Nothing ran. */
  usage: 2,
  /** The run stopped at the turn cap (`--max-turns`) before the model was done. */
  turnCap: 3,
  /** Blocked: the policy's kernel sandbox cannot be built here (fail closed), or a hook stopped the run. */
  blocked: 4,
  /** The model API refused the credentials (401/403): retrying will not help. */
  authentication: 5,
  /** The model API stayed overloaded or unavailable (429, 529, 5xx) past the retries. */
  unavailable: 6,
  /** `--output-schema`: the final answer did not validate, even after its repair turn. */
  invalidOutput: 7,
  /** Interrupted (Ctrl-C, SIGINT): 128 + 2, as shells report it. */
  interrupted: 130,
  /** stdout's reader went away (EPIPE): 128 + 13, as for a program killed by SIGPIPE. */
  outputClosed: 141,
  /** Terminated (SIGTERM), after the result line: 128 + 15, as shells report it. */
  terminated: 143,
} as const;

/** The exit status for how an agent run ended. */
export function exitCodeFor(result: Pick<RunResult, 'status' | 'errorCode'>): number {
  switch (result.status) {
    case 'complete':
      return EXIT.ok;
    case 'loop_cap':
      return EXIT.turnCap;
    case 'cancelled':
      return result.errorCode === 'terminated' ? EXIT.terminated : EXIT.interrupted;
    case 'repetition':
      return EXIT.repetition;
    case 'error':
      switch (result.errorCode) {
        case 'authentication':
          return EXIT.authentication;
        case 'unavailable':
          return EXIT.unavailable;
        case 'invalid_output':
          return EXIT.invalidOutput;
        case 'blocked':
          return EXIT.blocked;
        default:
          return EXIT.error;
      }
  }
}
