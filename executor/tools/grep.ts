import { stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import * as z from 'zod';
import { elide } from '../../shared/elide.js';
import { defineTool, ToolFailure } from '../define-tool.js';
import { compileLinePattern, type LinePattern, matchingLines } from '../fs/line-search.js';
import { mapOrdered } from '../fs/map-ordered.js';
import { decodeText, looksLikeText, readForSearchSync } from '../fs/read-text.js';
import { countSkipped, nameFilter } from '../fs/ripgrep.js';
import { type FileHits, type GrepMode, ripgrepGrep } from '../fs/ripgrep-grep.js';
import { type WalkEntry, walkFiles } from '../fs/walk-files.js';
import { toolDescription } from '../tool-description.js';

/** Files bigger than this are skipped (and counted): they are data or bundles, not code to search. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Files searched ahead of the one being reported, so the walk's directory reads overlap the searching. */
const CONCURRENCY = 16;
/** Longest stretch of blocking reads before the event loop gets a turn. */
const YIELD_EVERY_MS = 8;
/** Most source files fit in one read of this size. */
const SCRATCH_BYTES = 64 * 1024;
const DEFAULT_MAX_RESULTS = 200;
/** A minified line can be megabytes; show its start. */
const MAX_LINE_CHARS = 500;
const MAX_PATTERN_CHARS = 10_000;

/** The pattern, path or glob quoted back when nothing matched. */
const MAX_ECHO_CHARS = 500;

type OutputMode = GrepMode;

type Searched = FileHits | 'none' | 'too_large';

export const grepTool = defineTool({
  name: 'grep',
  effect: 'read',
  description: toolDescription('grep'),
  input: z.object({
    pattern: z
      .string()
      .min(1)
      // ripgrep takes it in argv, where one argument may hold 128 KiB; no search needs a tenth of it.
      .max(
        MAX_PATTERN_CHARS,
        `at most ${MAX_PATTERN_CHARS} characters; search for a distinctive part instead`,
      )
      .describe('JavaScript regular expression, e.g. "function\\s+\\w+" or "TODO".'),
    path: z.string().min(1).default('.').describe('File or directory to search. Default: the workspace.'),
    glob: z
      .string()
      .min(1)
      .optional()
      .describe('Only search files matching this glob; without a "/" it matches file names anywhere.'),
    case_insensitive: z.boolean().optional().describe('Match regardless of case.'),
    context: z.number().int().min(0).max(10).optional().describe('Lines of context around each match.'),
    output_mode: z
      .enum(['content', 'files_with_matches', 'count'])
      .default('files_with_matches')
      .describe('What to return; default files_with_matches.'),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe('Most matching lines (content) or files (other modes) returned. Default 200.'),
  }),
  async run(input, ctx) {
    const pattern = compile(input.pattern, input.case_insensitive ?? false);
    const root = await ctx.paths.forRead(input.path);
    const info = await stat(root).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new ToolFailure('not_found', `${input.path} does not exist`);
      throw error;
    });
    if (!info.isDirectory() && !info.isFile()) {
      throw new ToolFailure('invalid_input', `${input.path} is not a regular file or directory`);
    }
    const mode: OutputMode = input.output_mode;
    const limit = input.max_results ?? DEFAULT_MAX_RESULTS;
    const context = mode === 'content' ? (input.context ?? 0) : 0;
    const counts = { ignored: 0 };
    const filter = input.glob === undefined ? undefined : fileFilter(input.glob);
    const viaRipgrep = ctx.ripgrep
      ? await ripgrepGrep({
          binary: ctx.ripgrep,
          wrapper: ctx.commandWrapper,
          signal: ctx.signal,
          paths: ctx.paths,
          root,
          isDirectory: info.isDirectory(),
          shownRoot: input.path,
          pattern: input.pattern,
          caseInsensitive: input.case_insensitive ?? false,
          glob: input.glob,
          ...(filter && { wanted: filter }),
          mode,
          context,
          limit,
          maxFileBytes: MAX_FILE_BYTES,
          cut,
        })
      : 'rejected';
    const candidates = (): AsyncIterable<WalkEntry> =>
      info.isDirectory()
        ? walkFiles({
            root,
            workspace: ctx.workspace,
            signal: ctx.signal,
            paths: ctx.paths,
            gitignore: true,
            counts,
          })
        : single(root);
    const scratch: Buffer[] = [];

    let lastYield = performance.now();
    const search = async (entry: WalkEntry): Promise<Searched> => {
      // Blocking reads are much faster for many small files; hand the event loop back every few
      // milliseconds so other calls, cancels and frames are not held up.
      if (performance.now() - lastYield > YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        lastYield = performance.now();
      }
      const buffer = scratch.pop() ?? Buffer.allocUnsafe(SCRATCH_BYTES);
      try {
        const read = readForSearchSync(entry.path, MAX_FILE_BYTES, buffer);
        if (read.kind === 'too_large') return 'too_large';
        if (read.kind === 'binary' || read.kind === 'changed' || !pattern.mayMatch(read.data)) return 'none';
        const shown = info.isDirectory() ? path.join(input.path, entry.relative) : input.path;
        if (mode === 'files_with_matches' && looksLikeText(read.data) && pattern.matchesQuickly(read.data)) {
          return { shown, count: 1, lines: [], matchAt: [] };
        }
        const text = decodeText(read.data);
        if (text === undefined) return 'none';
        return findIn(text, shown, pattern, mode, mode === 'files_with_matches' ? 1 : limit, context);
      } catch (error) {
        // A file deleted or made unreadable mid-search is skipped, like grep -s.
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ELOOP') return 'none';
        throw error;
      } finally {
        scratch.push(buffer);
      }
    };

    const out: string[] = [];
    let files = 0;
    let matches = 0;
    let tooLarge = 0;
    let truncated = false;
    const wanted = (entry: WalkEntry) => !filter || filter(entry.relative);
    /** Adds one file's result to the output; false once the limit is reached. */
    const take = (hits: Searched): boolean => {
      if (hits === 'none') return true;
      if (hits === 'too_large') {
        tooLarge++;
        return true;
      }
      const room = mode === 'content' ? limit - matches : limit - files;
      if (mode === 'content' && hits.count > room) {
        // Keep the first `room` matches and the context before them, not the context after.
        appendContent(out, hits.lines.slice(0, hits.matchAt[room - 1]! + 1), context);
        matches += room;
        files++;
        truncated = true;
        return false;
      }
      files++;
      matches += hits.count;
      if (mode === 'content') appendContent(out, hits.lines, context);
      else if (mode === 'count') out.push(`${hits.shown}:${hits.count}`);
      else out.push(hits.shown);
      if ((mode === 'content' ? matches : files) >= limit) {
        // Whether more exist is unknown without searching on, which is what stopping avoids.
        truncated = true;
        return false;
      }
      return true;
    };
    if (viaRipgrep === 'rejected') {
      // Files are searched ahead but taken in walk order, so the output and where it stops
      // are the same on every run. In content mode a file may bring up to `limit` lines; the
      // overshoot is trimmed in `take`.
      for await (const hits of mapOrdered(only(candidates(), wanted), CONCURRENCY, search)) {
        ctx.signal.throwIfAborted();
        if (!take(hits)) break;
      }
    } else {
      // ripgrep's results are all here: a plain loop, not an await (a microtask) per file.
      for (const hits of viaRipgrep) if (!take(hits)) break;
    }
    ctx.signal.throwIfAborted();
    if (ctx.ripgrep && viaRipgrep !== 'rejected' && files === 0 && info.isDirectory()) {
      // Only an empty result says what was not searched: what gitignore hid and what was too big,
      // which ripgrep skips without a word; it counts them in listings.
      const skipped = await countSkipped({
        binary: ctx.ripgrep,
        wrapper: ctx.commandWrapper,
        cwd: root,
        signal: ctx.signal,
        extra: input.glob === undefined ? [] : nameFilter(input.glob),
        maxFileBytes: MAX_FILE_BYTES,
      });
      counts.ignored = skipped.ignored;
      tooLarge += skipped.tooLarge;
    }
    return {
      output: render(out, { input, files, matches, tooLarge, ignored: counts.ignored, truncated, limit }),
      // In files_with_matches mode only the first match of a file is looked for, so matches = files.
      display: { type: 'matches', files, matches, truncated },
    };
  },
});

function compile(source: string, caseInsensitive: boolean): LinePattern {
  try {
    return compileLinePattern(source, caseInsensitive);
  } catch (error) {
    const hint = /\(\?[a-z]+\)/.test(source)
      ? ' Inline flags like (?i) are not JavaScript syntax; pass case_insensitive: true instead.'
      : ' Escape characters such as ( [ { . * + ? with a backslash to match them literally.';
    throw new ToolFailure(
      'invalid_input',
      `pattern is not a valid JavaScript regular expression (${elide((error as Error).message, MAX_ECHO_CHARS)}).${hint}`,
    );
  }
}

/** Like ripgrep's --glob: without a "/" the pattern matches file names at any depth. */
function fileFilter(glob: string): (relative: string) => boolean {
  const matches = picomatch(glob, { dot: true });
  // picomatch's own `basename` option also applies to patterns with a "/", so do it here.
  return glob.includes('/') ? matches : (relative) => matches(path.posix.basename(relative));
}

async function* single(file: string): AsyncGenerator<WalkEntry> {
  yield { path: file, relative: path.basename(file), kind: 'file' };
}

async function* only<T>(source: AsyncIterable<T>, keep: (item: T) => boolean): AsyncGenerator<T> {
  for await (const item of source) if (keep(item)) yield item;
}

function findIn(
  text: string,
  shown: string,
  pattern: LinePattern,
  mode: OutputMode,
  limit: number,
  context: number,
): Searched {
  const hits = matchingLines(text, pattern, limit);
  if (hits.length === 0) return 'none';
  const lines: string[] = [];
  const matchAt: number[] = [];
  if (mode !== 'content') return { shown, count: hits.length, lines, matchAt };
  if (context === 0) {
    for (const hit of hits) {
      matchAt.push(lines.length);
      lines.push(`${shown}:${hit.number}:${cut(text.slice(hit.start, hit.end))}`);
    }
    return { shown, count: hits.length, lines, matchAt };
  }
  // Context needs neighbouring lines; splitting is worth it only now that a match is certain.
  const all = text.split('\n');
  if (all.length > 1 && all[all.length - 1] === '') all.pop();
  const matched = new Set(hits.map((hit) => hit.number));
  let shownTo = 0; // 1-based number of the last line rendered
  for (const hit of hits) {
    // A match already shown as context of an earlier one still extends the context after it.
    const from = Math.max(1, hit.number - context, shownTo + 1);
    const to = Math.min(all.length, hit.number + context);
    if (from > to) continue;
    if (shownTo > 0 && from > shownTo + 1) lines.push('--');
    for (let n = from; n <= to; n++) {
      const line = cut(all[n - 1]!.replace(/\r$/, ''));
      if (matched.has(n)) {
        matchAt.push(lines.length);
        lines.push(`${shown}:${n}:${line}`);
      } else {
        lines.push(`${shown}-${n}-${line}`);
      }
    }
    shownTo = to;
  }
  return { shown, count: hits.length, lines, matchAt };
}

function cut(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut]` : line;
}

function appendContent(out: string[], lines: readonly string[], context: number): void {
  if (context > 0 && out.length > 0 && lines.length > 0) out.push('--');
  out.push(...lines);
}

interface Summary {
  input: { pattern: string; path: string; glob?: string | undefined; output_mode: OutputMode };
  files: number;
  matches: number;
  tooLarge: number;
  ignored: number;
  truncated: boolean;
  limit: number;
}

function render(out: string[], s: Summary): string {
  const notes: string[] = [];
  if (s.files === 0) {
    // What the model sent is echoed, not copied: a pattern or path can be megabytes.
    const path = elide(s.input.path, MAX_ECHO_CHARS);
    const where = s.input.glob ? `${path} (files matching ${elide(s.input.glob, MAX_ECHO_CHARS)})` : path;
    const hidden =
      s.ignored > 0 ? `; ${plural(s.ignored, 'gitignored entry', 'gitignored entries')} not searched` : '';
    notes.push(`no matches for /${elide(s.input.pattern, MAX_ECHO_CHARS)}/ in ${where}${hidden}`);
  } else if (s.input.output_mode === 'count') {
    notes.push(`[${s.matches} matching lines in ${s.files} files]`);
  }
  if (s.truncated) {
    const unit = s.input.output_mode === 'content' ? 'matching lines' : 'files';
    notes.push(
      `[stopped at ${s.limit} ${unit}; there may be more. Narrow the pattern, path or glob, or raise max_results]`,
    );
  }
  if (s.tooLarge > 0) {
    const skipped = plural(s.tooLarge, 'file', 'files');
    notes.push(`[skipped ${skipped} over ${MAX_FILE_BYTES / 1024 / 1024} MB; use shell to search them]`);
  }
  return [...out, ...notes].join('\n');
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
