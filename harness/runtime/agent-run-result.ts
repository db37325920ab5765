import type { DispatchRecord } from '../../shared/dispatch-telemetry.js';
import type { ImageInput } from '../../shared/engine-events.js';
import type { ResultContract } from '../agents/result-contracts.js';
import type { RunOutcome } from '../engine/engine-types.js';

// A run's input and result, apart from `AgentSession` so the parts that run it import them
// without importing the session (agent-session.ts re-exports both).

/** What one `prompt` ends with: the engine's outcome and what the frontend reports with it. */
export interface AgentRunResult extends RunOutcome {
  model: string;
  sessionId: string | undefined;
  durationMs: number;
  /** With `outputSchema`: the final answer, validated. */
  structuredOutput?: unknown;
  /** The sub-agents this run dispatched (its direct children), with their figures. */
  dispatches?: DispatchRecord[];
}

/** What one `prompt` may ask besides its text. */
export interface PromptOptions {
  images?: ImageInput[];
  /** This prompt's turn cap, instead of the settings' (a sub-agent's reminder). */
  maxTurns?: number;
  /** Number this run's turns on from this many (a reminder continuing a run). */
  turnOffset?: number;
  /**
   * The answer must match this contract (`--output-schema`): the model gives it through the
   * `structured_output` tool, with one repair turn for an invalid one and one reminder when it
   * ends without; otherwise the run ends as an `invalid_output` error.
   */
  outputSchema?: ResultContract;
}
