import { createHash } from 'node:crypto';
import type { AgentPath } from '../../shared/engine-events.js';
import type { Emitter } from './engine-types.js';
import type { ToolResultBlock, ToolUseBlock } from './run-tool-calls.js';

export interface RepetitionLimits {
  /** Identical turns in a row after which the model is told it is repeating itself. Default 5. */
  warnAt: number;
  /** Identical turns in a row after which the run stops. Default warnAt + 1: the warning is ignored. */
  stopAt: number;
}

export type Repetition =
  | { kind: 'none' }
  | { kind: 'warn'; times: number; tools: string[]; untilStop: number }
  | { kind: 'stop'; times: number; tools: string[] };

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` are the same input. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, v]) => `${JSON.stringify(key)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * Notices a model stuck in a loop: the same tool calls, with the same input,
 * getting the same results, turn after turn (Gemini CLI stops the same way).
 * A turn that changes any call, input or result resets the count, so polling
 * something that changes is never stopped. Only a digest of the last turn is kept.
 */
export class RepetitionGuard {
  private last: string | undefined;
  private times = 0;
  private readonly limits: RepetitionLimits;

  constructor(limits: Partial<RepetitionLimits> = {}) {
    const warnAt = limits.warnAt ?? 5;
    this.limits = { warnAt, stopAt: limits.stopAt ?? warnAt + 1 };
  }

  /** Records one turn's calls and their results, in the model's order. */
  record(calls: readonly ToolUseBlock[], results: readonly ToolResultBlock[]): Repetition {
    const digest = createHash('sha256');
    calls.forEach((call, i) => {
      const result = results[i];
      digest.update(canonical([call.name, call.input, result?.output, result?.isError]));
    });
    const turn = digest.digest('hex');
    this.times = turn === this.last ? this.times + 1 : 1;
    this.last = turn;
    const tools = calls.map((call) => call.name);
    if (this.times >= this.limits.stopAt) return { kind: 'stop', times: this.times, tools };
    if (this.times === this.limits.warnAt) {
      return { kind: 'warn', times: this.times, tools, untilStop: this.limits.stopAt - this.times };
    }
    return { kind: 'none' };
  }
}

/**
 * Records a finished turn. On the warning, the model is told in the turn's last
 * tool result (what it reads next) and the user by a `warn` event; the caller
 * ends the run on `stop`.
 */
export function checkRepetition(
  guard: RepetitionGuard,
  calls: readonly ToolUseBlock[],
  results: ToolResultBlock[],
  emitter: Emitter,
  agent: AgentPath,
): Repetition {
  const repetition = guard.record(calls, results);
  if (repetition.kind === 'warn' && results.length > 0) {
    const last = results.length - 1;
    results[last] = {
      ...results[last]!,
      output: `${results[last]!.output}\n\n${repetitionNotice(repetition)}`,
    };
    emitter.emit({
      type: 'warn',
      agent,
      message: `The model repeated the same call (${repetition.tools.join(', ')}) with the same result ${repetition.times} times in a row; it was told to change approach.`,
    });
  }
  return repetition;
}

/** Why a run was stopped for repeating itself: the run's error and the `error` event's message. */
export function repetitionStopMessage(repetition: Extract<Repetition, { kind: 'stop' }>): string {
  return `Stopped: the model made the same call (${repetition.tools.join(', ')}) with the same input and got the same result ${repetition.times} times in a row, after being told to change approach.`;
}

/** What the model reads after the results of the turn that reached the warning. */
function repetitionNotice(repetition: Extract<Repetition, { kind: 'warn' }>): string {
  const more =
    repetition.untilStop === 1 ? 'One more identical call' : `${repetition.untilStop} more identical calls`;
  return `[Skate: you have made this same call (${repetition.tools.join(', ')}) with the same input ${repetition.times} times in a row and got the same result each time. Repeating it will not change the result: change your approach (different input, another tool, or tell the user what blocks you). ${more} will stop the run.]`;
}
