/** A mistake in how a command was invoked; the CLI prints it with usage help and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
