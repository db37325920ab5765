import type { ServeErrorCode } from '../../shared/serve-api.js';
import { AgentRuntimeError } from '../runtime/agent-runtime-error.js';
import { SessionError } from '../session/session-error.js';

/** The HTTP status of each error code: one status per code, so clients can branch on either. */
const STATUS: Record<ServeErrorCode, number> = {
  unauthorized: 401,
  bad_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  unsupported_media_type: 415,
  payload_too_large: 413,
  forbidden: 403,
  host_not_allowed: 403,
  unknown_model: 400,
  busy: 409,
  not_pending: 409,
  workspace_in_use: 409,
  replay_gone: 410,
  too_many_sessions: 429,
  too_many_runs: 429,
  shutting_down: 503,
  start_failed: 500,
  internal: 500,
};

export function serveErrorStatus(code: ServeErrorCode): number {
  return STATUS[code];
}

/** The HTTP API's one error class: a code (and with it the status) and a message for the client. */
export class ServeError extends Error {
  constructor(
    readonly code: ServeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ServeError';
  }

  get status(): number {
    return STATUS[this.code];
  }

  /**
   * What the runtime's refusals mean to a client: a bad workspace, policy or
   * session is the request's fault (400/404), a busy agent a 409; anything
   * else is the server's (500, its message kept: the client is the operator).
   */
  static fromUnknown(error: unknown): ServeError {
    if (error instanceof ServeError) return error;
    if (error instanceof AgentRuntimeError) {
      switch (error.code) {
        case 'busy':
          return new ServeError('busy', error.message);
        case 'session':
          return new ServeError('not_found', error.message);
        case 'workspace':
        case 'policy':
        case 'plan':
        case 'settings':
          return new ServeError('bad_request', error.message);
        case 'closed':
          return new ServeError('not_found', error.message);
      }
    }
    if (error instanceof SessionError) {
      return new ServeError(
        error.code === 'missing' || error.code === 'ambiguous' ? 'not_found' : 'internal',
        error.message,
      );
    }
    return new ServeError('internal', error instanceof Error ? error.message : String(error));
  }
}
