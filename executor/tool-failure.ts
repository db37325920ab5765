import type { ToolErrorCode } from '../shared/tool.js';

/**
 * Thrown inside `run` to end the call with an error result the model can act on.
 * The runner catches it; it never crosses the wire as an exception.
 */
export class ToolFailure extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ToolFailure';
  }
}
