import * as z from 'zod';
import { elide } from './elide.js';

/** Problems listed; the rest are counted. */
const MAX_ISSUES = 20;
/** A message may quote the input (an unrecognized key); a path holds the input's keys. */
const MAX_MESSAGE_CHARS = 300;
const MAX_KEY_CHARS = 100;

/**
 * zod's field-by-field wording of a refusal, bounded: at most 20 problems, and what they quote
 * of the input (keys, in messages and paths) elided past a few hundred characters. On its own so
 * code that loads zod only when an input is refused can import it lazily: `import('zod')` itself
 * would bundle all of zod (750 KB) where the namespace import tree-shakes to 200 KB.
 */
export function prettifyZodError(error: z.ZodError): string {
  const shown = error.issues.slice(0, MAX_ISSUES).map((issue) => ({
    ...issue,
    message: elide(issue.message, MAX_MESSAGE_CHARS),
    path: issue.path.map((key) => (typeof key === 'string' ? elide(key, MAX_KEY_CHARS) : key)),
  }));
  const text = z.prettifyError(new z.ZodError(shown));
  const more = error.issues.length - shown.length;
  return more > 0 ? `${text}\n✖ … and ${more} more ${more === 1 ? 'problem' : 'problems'}` : text;
}
