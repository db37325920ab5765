export type SessionErrorCode =
  /** No such session file, or no session matches an id or prefix. */
  | 'missing'
  /** More than one session matches a prefix. */
  | 'ambiguous'
  /** The file is empty: a session whose header was never written. */
  | 'empty'
  /** The first line is not a session header: some other file. */
  | 'not_a_session'
  /** A session header of a format version this Skate does not read. */
  | 'unsupported_version'
  /** A line other than a torn last one is not a valid event, or breaks the chain. */
  | 'corrupt_line'
  /** An event id that the session does not contain (or a prefix of several). */
  | 'unknown_event'
  /** The writer refused an event the reader could not read back (NaN tokens, an unknown block type). */
  | 'invalid_event'
  /** Reading or writing the file failed (permissions, a full or failing disk). */
  | 'io'
  /** The writer was closed, or stopped after an earlier write failed. */
  | 'closed'
  /** Another live process is appending to this session. */
  | 'in_use';

/** Any failure reading, finding or writing a session; `file` and `line` say where, when known. */
export class SessionError extends Error {
  constructor(
    readonly code: SessionErrorCode,
    message: string,
    readonly file?: string,
    readonly line?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SessionError';
  }

  /** Wraps whatever a file operation threw; a SessionError passes through unchanged. */
  static fromUnknown(error: unknown, file?: string): SessionError {
    if (error instanceof SessionError) return error;
    const errno = (error as NodeJS.ErrnoException | undefined)?.code;
    const reason = error instanceof Error ? error.message : String(error);
    if (errno === 'ENOENT') return new SessionError('missing', `${file ?? 'session'}: no such file`, file);
    return new SessionError('io', file ? `${file}: ${reason}` : reason, file, undefined, { cause: error });
  }
}
