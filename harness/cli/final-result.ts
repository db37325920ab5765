import type { RunResult } from '../../shared/run-result.js';
import type { RunEnding } from '../runtime/run-result-of.js';
import { runResultOf } from '../runtime/run-result-of.js';

export interface FinalResult {
  /** Writes the result of `ending` unless one was written; returns the result written (or the earlier one). */
  write(ending: RunEnding): RunResult;
  readonly written: RunResult | undefined;
  /** Lets the next prompt of a multi-turn run (`--input-format stream-json`) write its own result. */
  next(): void;
}

/**
 * The one result line of a headless run: written exactly once, whichever way the run ends (its
 * own end, SIGTERM, a crash in the harness, a failure to start), so a script reading the last
 * line of stream-json, or the whole of json, always finds a result.
 */
export function createFinalResult(started: number, print: (result: RunResult) => void): FinalResult {
  let written: RunResult | undefined;
  return {
    write(ending) {
      if (written) return written;
      written = runResultOf(ending, performance.now() - started);
      print(written);
      return written;
    },
    get written() {
      return written;
    },
    next() {
      written = undefined;
    },
  };
}

/** A run that never reached the model, or whose end was lost: zero counts, its error said. */
export function emptyEnding(
  model: string,
  status: RunEnding['status'],
  errorCode: string,
  error: string | undefined,
  sessionId?: string,
): RunEnding {
  return {
    status,
    finalMessage: '',
    turns: 0,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    model,
    sessionId,
    error,
    errorCode,
  };
}
