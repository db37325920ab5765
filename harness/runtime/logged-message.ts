/** Where a message of the conversation is in the session log: what `fork` takes to branch there. */
export interface MessageRef {
  /** The session event holding the message. */
  eventId: string;
  /** The event before it on its branch; null for the first. */
  parentId: string | null;
}

/** A message of the main agent's conversation, as it was appended to the session log. */
export interface LoggedMessage extends MessageRef {
  /** A prompt, a model reply, or the results of the reply's tool calls. */
  kind: 'prompt' | 'reply' | 'tool_results';
  /** With `tool_results`: the calls answered. */
  callIds: readonly string[];
}
