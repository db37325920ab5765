import path from 'node:path';
import type { PathGuard } from '../path-guard.js';
import { joinTo, nameFilter, rejectedPattern, runRipgrep, sortWalkOrder, walkFlags } from './ripgrep.js';

/** One file's matches, rendered the way grep shows them. */
export interface FileHits {
  readonly shown: string;
  readonly count: number;
  /** Rendered output lines, in content mode, and the index in them of each matching line. */
  readonly lines: string[];
  readonly matchAt: number[];
}

export type GrepMode = 'content' | 'files_with_matches' | 'count';

export interface RipgrepGrepOptions {
  readonly binary: string;
  readonly wrapper: readonly string[];
  readonly signal: AbortSignal;
  readonly paths: Pick<PathGuard, 'readableUnder'>;
  /** Real path of the file or directory searched, and whether it is a directory. */
  readonly root: string;
  readonly isDirectory: boolean;
  /** The path as the model gave it: output paths start with it. */
  readonly shownRoot: string;
  readonly pattern: string;
  readonly caseInsensitive: boolean;
  readonly glob: string | undefined;
  /** Whether a file, by its path relative to the root, is to be searched (the tool's glob). */
  readonly wanted?: (relative: string) => boolean;
  readonly mode: GrepMode;
  readonly context: number;
  /** Matching lines (content) or files (other modes) after which ripgrep is stopped. */
  readonly limit: number;
  readonly maxFileBytes: number;
  /** Cuts a long line for display. */
  cut(line: string): string;
}

/**
 * Bytes of a long line ripgrep prints (then " [... omitted end of long line]"). Lines are cut
 * for display at 500 UTF-16 units, and 2,000 bytes of UTF-8 hold at least 666 of them, so what
 * is shown is the same as from the whole line; minified files no longer cross the pipe whole.
 */
const PREVIEW_BYTES = 2000;

/**
 * grep's search done by ripgrep: the files and lines it found, readable by the policy, in walk
 * order; ripgrep is stopped once `limit` is reached. `rejected` when ripgrep cannot take the
 * pattern (JavaScript-only syntax such as look-around), so the caller searches in JavaScript.
 *
 * ripgrep searches files in parallel, so when it is stopped at the cap the files found are the
 * first it reached, not the first in path order.
 */
export async function ripgrepGrep(options: RipgrepGrepOptions): Promise<FileHits[] | 'rejected'> {
  const { mode, limit, paths } = options;
  const dir = options.isDirectory ? options.root : path.dirname(options.root);
  const shownPath = joinTo(path.normalize(options.shownRoot));
  const shownFor = (relative: string): string =>
    options.isDirectory ? shownPath(relative) : options.shownRoot;
  // Denied files the sandbox could not hide (one created after it started) are kept out here.
  const readableUnder = paths.readableUnder(dir);
  const readable = (relative: string): boolean => wanted(relative) && readableUnder(relative);
  const args = [
    ...walkFlags(true),
    `--max-filesize=${options.maxFileBytes}`,
    ...(options.caseInsensitive ? ['--ignore-case'] : ['--case-sensitive']),
    // Narrows what ripgrep reads; `wanted` decides.
    ...(options.glob === undefined ? [] : nameFilter(options.glob)),
  ];
  const wanted = options.wanted ?? (() => true);
  const found: FileHits[] = [];
  let total = 0;
  const take = (hits: FileHits): boolean => {
    found.push(hits);
    total += mode === 'content' ? hits.count : 1;
    return total < limit;
  };
  let onRecord: (record: string) => boolean;
  let flush = (): void => undefined;
  if (mode === 'files_with_matches') {
    args.push('--files-with-matches', '--null');
    onRecord = (relative) =>
      !readable(relative) || take({ shown: shownFor(relative), count: 1, lines: [], matchAt: [] });
  } else if (mode === 'count') {
    // --with-filename: a single file searched is named too, as every record must start with a path.
    args.push('--count', '--with-filename', '--null');
    onRecord = pathRecords(
      (relative, count) =>
        !readable(relative) ||
        take({ shown: shownFor(relative), count: Number(count), lines: [], matchAt: [] }),
    );
  } else {
    // Plain lines rather than --json: a seventh of the bytes on the bench's tree (long lines arrive
    // cut) and no JSON to decode. Context groups are rebuilt from the line numbers, as before. Unlike
    // --json this cannot tell a file ripgrep found a NUL in late (past its first read) from text:
    // the lines matched before the NUL are shown, as the other modes already counted them.
    args.push(
      '--line-number',
      '--no-heading',
      '--with-filename',
      '--null',
      '--no-context-separator',
      `--max-columns=${PREVIEW_BYTES}`,
      '--max-columns-preview',
      ...(options.context > 0 ? [`--context=${options.context}`] : []),
    );
    const parser = contentParser(options, shownFor, readable, () => total, take);
    onRecord = pathRecords(parser.line);
    flush = parser.flush;
  }
  const target = options.isDirectory ? [] : [path.basename(options.root)];
  const exit = await runRipgrep({
    binary: options.binary,
    wrapper: options.wrapper,
    cwd: dir,
    args: [...args, '--regexp', options.pattern, '--', ...target],
    signal: options.signal,
    separator: mode === 'files_with_matches' ? 0 : 10,
    onRecord,
  });
  options.signal.throwIfAborted();
  if (!exit.stopped) flush();
  if (rejectedPattern(exit)) return 'rejected';
  return sortWalkOrder(found, (hits) => hits.shown);
}

/**
 * Splits `path NUL rest` records, ripgrep's `--null` output. A path may hold newlines, which split
 * it across records: a record without a NUL is the start of the next record's path.
 */
function pathRecords(onRecord: (relative: string, rest: string) => boolean): (record: string) => boolean {
  let head = '';
  return (record) => {
    const at = record.indexOf('\0');
    if (at === -1) {
      head += `${record}\n`;
      return true;
    }
    const relative = head + record.slice(0, at);
    head = '';
    return onRecord(relative, record.slice(at + 1));
  };
}

/**
 * Builds each file's rendered lines from `LINE:text` (match) and `LINE-text` (context) records.
 * ripgrep writes each file's lines together, so a new path ends the previous file. It is stopped
 * once the matches taken plus the current file's reach the limit: what follows would be cut.
 */
function contentParser(
  options: RipgrepGrepOptions,
  shownFor: (relative: string) => string,
  readable: (relative: string) => boolean,
  taken: () => number,
  take: (hits: FileHits) => boolean,
): { line(relative: string, rest: string): boolean; flush(): boolean } {
  let current:
    | { relative: string; shown: string; ok: boolean; lines: string[]; matchAt: number[]; last: number }
    | undefined;
  const flush = (): boolean => {
    const done = current;
    current = undefined;
    if (!done?.ok || done.matchAt.length === 0) return true;
    return take({ shown: done.shown, count: done.matchAt.length, lines: done.lines, matchAt: done.matchAt });
  };
  const line = (relative: string, rest: string): boolean => {
    if (current?.relative !== relative) {
      if (!flush()) return false;
      const ok = readable(relative);
      current = { relative, shown: ok ? shownFor(relative) : '', ok, lines: [], matchAt: [], last: 0 };
    }
    if (!current.ok) return true;
    let digits = 0;
    while (digits < rest.length && rest.charCodeAt(digits) >= 48 && rest.charCodeAt(digits) <= 57) digits++;
    const n = Number(rest.slice(0, digits));
    const isMatch = rest[digits] === ':';
    let text = rest.slice(digits + 1);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (current.last > 0 && n > current.last + 1) current.lines.push('--');
    current.last = n;
    if (isMatch) {
      current.matchAt.push(current.lines.length);
      current.lines.push(`${current.shown}:${n}:${options.cut(text)}`);
      if (taken() + current.matchAt.length >= options.limit) {
        flush();
        return false;
      }
    } else {
      current.lines.push(`${current.shown}-${n}-${options.cut(text)}`);
    }
    return true;
  };
  return { line, flush };
}
