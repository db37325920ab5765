import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { openedPath } from '../path-guard.js';
import { looksBinary } from './file-text.js';

/** Bytes checked for a NUL, the sign of a binary file (as git and ripgrep decide). */
const SNIFF_BYTES = 8192;

export type SearchRead =
  | { readonly kind: 'data'; readonly data: Buffer }
  | { readonly kind: 'binary' }
  /** What was opened is not `file` any more (a symlink swapped in on the way): not read. */
  | { readonly kind: 'changed' }
  | { readonly kind: 'too_large'; readonly size: number };

/**
 * Reads a file's bytes for searching. Most source files fit in `scratch`, so
 * they cost one open, one read and one close, with no stat; bigger ones are
 * measured and refused past `maxBytes`, and a binary file is recognised from
 * its first block without reading the rest. `data` may be a view of
 * `scratch`: use it before reusing the buffer.
 *
 * The reads block: searching a tree reads thousands of small files, and
 * blocking reads took ~20% less time here than the thread pool's round trips.
 * Callers yield to the event loop between files every few milliseconds so the
 * executor keeps serving.
 *
 * `file` is a real path the caller has checked; what was opened must still be
 * it, or a command swapping a directory on the way for a symlink could have the
 * search read a file the policy denies.
 */
export function readForSearchSync(file: string, maxBytes: number, scratch: Buffer): SearchRead {
  const fd = openSync(file, 'r');
  try {
    const opened = openedPath(fd);
    if (opened !== undefined && opened !== file) return { kind: 'changed' };
    const first = readSync(fd, scratch, 0, scratch.length, 0);
    const head = scratch.subarray(0, first);
    if (head.subarray(0, SNIFF_BYTES).includes(0)) return { kind: 'binary' };
    if (first < scratch.length) return { kind: 'data', data: head };
    const { size } = fstatSync(fd);
    if (size > maxBytes) return { kind: 'too_large', size };
    const whole = Buffer.allocUnsafe(Math.max(size, scratch.length));
    scratch.copy(whole);
    let length = scratch.length;
    while (length < whole.length) {
      const bytesRead = readSync(fd, whole, length, whole.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return { kind: 'data', data: whole.subarray(0, length) };
  } finally {
    closeSync(fd);
  }
}

/** Decodes bytes as UTF-8 text, or returns undefined when they are not text after all. */
export function decodeText(data: Buffer): string | undefined {
  const text = data.toString('utf8');
  // Decoding is native and fast; the slower character count runs only when something failed to decode.
  if (text.includes('\uFFFD') && looksBinary(data)) return undefined;
  return text;
}

/** A cheap text check on the first block, for when the whole file will not be decoded. */
export function looksLikeText(data: Buffer): boolean {
  return !data.toString('utf8', 0, SNIFF_BYTES).includes('\uFFFD') || !looksBinary(data);
}
