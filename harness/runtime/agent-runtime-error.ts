/** Why an agent could not be started or a command not carried out. */
export type AgentRuntimeErrorCode =
  /** The workspace does not exist or is not a directory. */
  | 'workspace'
  /** The policy cannot be found or is invalid. */
  | 'policy'
  /** The session to continue, resume or fork cannot be opened. */
  | 'session'
  /** The plan cannot be prepared or read. */
  | 'plan'
  /** The settings ask for something that cannot be done (a fork without a session, say). */
  | 'settings'
  /** A run is in progress; the command waits for it to end. */
  | 'busy'
  /** The agent was closed. */
  | 'closed';

/** The runtime's one error class: what a frontend shows its user, with a code to act on. */
export class AgentRuntimeError extends Error {
  constructor(
    readonly code: AgentRuntimeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AgentRuntimeError';
  }
}
