import path from 'node:path';
import { isWithin } from '../../shared/path-within.js';

/** The longest error message a client gets: an input echoed back is cut, not sent whole. */
export const MAX_PUBLIC_MESSAGE_CHARS = 2048;

/** An absolute path in a message: a `/` that starts a word, up to a space, quote, colon or bracket. */
const ABSOLUTE_PATH = /(^|[\s'"`(=[{,])(\/[^\s'"`:,;)\]}]*)/g;

/** This API's own paths (`GET /v1/sessions lists them`) are advice, not host paths. */
const API_PATH = /^\/(v1(\/|$)|openapi\.json$)/;

/**
 * An error message as a client of `skate serve` may see it: no path of the
 * host in it (the runtime's messages name files absolutely, as a local CLI
 * user wants them), and no more than `MAX_PUBLIC_MESSAGE_CHARS`. A path
 * inside the server's workspace becomes relative to it, as clients name
 * session workspaces; any other absolute path becomes `<host path>`.
 */
export function publicMessage(message: string, root: string): string {
  const redacted = message.replace(ABSOLUTE_PATH, (_all, before: string, found: string) => {
    // The API's own routes, and `/` alone (the filesystem's root names nothing of this host).
    if (found === '/' || API_PATH.test(found)) return `${before}${found}`;
    const normalized = path.normalize(found);
    if (isWithin(root, normalized)) return `${before}${path.relative(root, normalized) || '.'}`;
    return `${before}<host path>`;
  });
  if (redacted.length <= MAX_PUBLIC_MESSAGE_CHARS) return redacted;
  const cut = redacted.length - MAX_PUBLIC_MESSAGE_CHARS;
  return `${redacted.slice(0, MAX_PUBLIC_MESSAGE_CHARS)}… (${cut} more characters)`;
}
