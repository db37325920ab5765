import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServeError } from './serve-error.js';

/** What a browser page on an allowed origin may send, and read back. */
const ALLOW_METHODS = 'GET, POST, DELETE';
const ALLOW_HEADERS = 'authorization, content-type, accept, last-event-id';
const EXPOSE_HEADERS = 'x-skate-run-id';
const MAX_AGE_S = 600;

/**
 * Cross-origin access for the origins given with `--cors` (none by default).
 * A preflight carries no credentials, so it is answered before the token
 * check: 204 with the CORS headers for an allowed origin, 403 otherwise.
 * Every other request still needs the token; an allowed origin's responses
 * (errors too) get the headers that let the page read them.
 */
export class Cors {
  private readonly origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.origins = new Set(origins);
  }

  /** True when `request` was a preflight, answered here. */
  preflight(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) {
      return false;
    }
    const origin = request.headers.origin;
    if (origin === undefined || !this.origins.has(origin)) {
      throw new ServeError(
        'forbidden',
        `cross-origin requests from ${origin ?? 'no origin'} are not allowed (skate serve --cors ORIGIN)`,
      );
    }
    this.allow(origin, response);
    response.writeHead(204, {
      'access-control-allow-methods': ALLOW_METHODS,
      'access-control-allow-headers': ALLOW_HEADERS,
      'access-control-max-age': String(MAX_AGE_S),
    });
    response.end();
    return true;
  }

  /** Adds the headers for an allowed `Origin`; nothing for another or none. */
  decorate(request: IncomingMessage, response: ServerResponse): void {
    response.setHeader('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin !== undefined && this.origins.has(origin)) {
      this.allow(origin, response);
      response.setHeader('access-control-expose-headers', EXPOSE_HEADERS);
    }
  }

  private allow(origin: string, response: ServerResponse): void {
    response.setHeader('access-control-allow-origin', origin);
    response.setHeader('vary', 'Origin');
  }
}
