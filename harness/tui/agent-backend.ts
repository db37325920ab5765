import type { EngineCommand, EngineEvent } from '../../shared/engine-events.js';

/**
 * The state-changing commands a frontend sends the agent runtime. This mirrors
 * `RuntimeCommand` (shared/runtime-command.ts on the `runtime` branch) field for
 * field, so switching to the shared type once it lands is an import change.
 */
export type BackendCommand =
  | { type: 'set_model'; model: string }
  | { type: 'compact' }
  | { type: 'clear' }
  | { type: 'resume'; sessionId: string }
  | { type: 'fork'; atEventId: string }
  | { type: 'set_network'; network: 'on' | 'off' }
  | { type: 'set_activity'; activity: 'plan' | 'execute'; task?: string; plan?: string };

/**
 * What the terminal UI drives: the shape of the runtime's `AgentSession`
 * (prompt, interrupt, answer, apply, events), kept to what the UI uses so a
 * fake can stand in for it in tests.
 */
export interface AgentBackend {
  readonly model: string;
  readonly sessionId: string | undefined;
  readonly activity: { kind: 'agent' | 'plan' | 'execute' };
  /** Every event of this agent and its sub-agents; returns the unsubscribe. */
  subscribe(listener: (event: EngineEvent) => void): () => void;
  /** Runs the model on `text` until it is done; one run at a time. */
  prompt(text: string): Promise<unknown>;
  interrupt(): void;
  /** Answers a running engine's question (approval, ask_user, loop cap); false when nothing waits for it. */
  answer(command: EngineCommand): boolean;
  /** Carries out a state-changing command; resolves to the agent to drive next. */
  apply(command: BackendCommand): Promise<AgentBackend>;
  /** The network the running executor reports. */
  network(): Promise<'on' | 'off'>;
  close(): Promise<void>;
}
