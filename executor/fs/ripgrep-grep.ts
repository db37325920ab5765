import path from 'node:path';
import type { PathGuard } from '../path-guard.js';
import { nameFilter, rejectedPattern, runRipgrep, sortWalkOrder, walkFlags } from './ripgrep.js';

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
  readonly paths: Pick<PathGuard, 'readable'>;
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

interface JsonText {
  text?: string;
  bytes?: string;
}

interface JsonMessage {
  type: 'begin' | 'match' | 'context' | 'end' | 'summary';
  data: { path?: JsonText; lines?: JsonText; line_number?: number | null; binary_offset?: number | null };
}

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
  const shownFor = (relative: string): string =>
    options.isDirectory ? path.join(options.shownRoot, relative) : options.shownRoot;
  // The kernel sandbox hides denied paths; without one, this check keeps them out of the output.
  const readable = (relative: string): boolean =>
    wanted(relative) && paths.readable(path.join(dir, relative));
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
  if (mode === 'files_with_matches') {
    args.push('--files-with-matches', '--null');
    onRecord = (relative) =>
      !readable(relative) || take({ shown: shownFor(relative), count: 1, lines: [], matchAt: [] });
  } else if (mode === 'count') {
    args.push('--count', '--null');
    onRecord = (record) => {
      const at = record.lastIndexOf('\0');
      const relative = record.slice(0, at);
      if (at === -1 || !readable(relative)) return true;
      return take({ shown: shownFor(relative), count: Number(record.slice(at + 1)), lines: [], matchAt: [] });
    };
  } else {
    args.push('--json', ...(options.context > 0 ? [`--context=${options.context}`] : []));
    onRecord = contentParser(options, shownFor, readable, take);
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
  if (rejectedPattern(exit)) return 'rejected';
  return sortWalkOrder(found, (hits) => hits.shown);
}

function text(value: JsonText | undefined): string {
  if (value?.text !== undefined) return value.text;
  return value?.bytes === undefined ? '' : Buffer.from(value.bytes, 'base64').toString('utf8');
}

/** Builds each file's rendered lines from `--json` messages: begin, match and context lines, end. */
function contentParser(
  options: RipgrepGrepOptions,
  shownFor: (relative: string) => string,
  readable: (relative: string) => boolean,
  take: (hits: FileHits) => boolean,
): (record: string) => boolean {
  let current: { shown: string; lines: string[]; matchAt: number[]; last: number } | undefined;
  return (record) => {
    const message = JSON.parse(record) as JsonMessage;
    const { data } = message;
    if (message.type === 'begin') {
      const relative = text(data.path);
      current = readable(relative)
        ? { shown: shownFor(relative), lines: [], matchAt: [], last: 0 }
        : undefined;
      return true;
    }
    if (!current) return true;
    if (message.type === 'match' || message.type === 'context') {
      const n = data.line_number ?? 0;
      if (current.last > 0 && n > current.last + 1) current.lines.push('--');
      current.last = n;
      const line = options.cut(text(data.lines).replace(/\r?\n$/, ''));
      if (message.type === 'match') {
        current.matchAt.push(current.lines.length);
        current.lines.push(`${current.shown}:${n}:${line}`);
      } else {
        current.lines.push(`${current.shown}-${n}-${line}`);
      }
      return true;
    }
    if (message.type === 'end') {
      const done = current;
      current = undefined;
      // A binary file (a NUL byte seen) is skipped, as the JavaScript search skips it.
      if (data.binary_offset != null || done.matchAt.length === 0) return true;
      return take({
        shown: done.shown,
        count: done.matchAt.length,
        lines: done.lines,
        matchAt: done.matchAt,
      });
    }
    return true;
  };
}
