import { statSync } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import * as z from 'zod';
import { defineTool, ToolFailure } from '../define-tool.js';
import { mapOrdered } from '../fs/map-ordered.js';
import {
  countIgnored,
  FirstInWalkOrder,
  joinTo,
  nameFilter,
  nameFilterDecides,
  runRipgrep,
  walkFlags,
} from '../fs/ripgrep.js';
import { walkFiles } from '../fs/walk-files.js';
import { toolDescription } from '../tool-description.js';

/** Paths returned; the rest are counted. */
const MAX_SHOWN = 500;
/** Matches collected before the walk stops. */
const MAX_COLLECTED = 10_000;
const STAT_CONCURRENCY = 16;

export const globTool = defineTool({
  name: 'glob',
  effect: 'read',
  description: toolDescription('glob'),
  input: z.object({
    pattern: z.string().min(1).describe('Glob matched against paths relative to `path`.'),
    path: z.string().min(1).default('.').describe('Directory to search. Default: the workspace.'),
    include_ignored: z
      .boolean()
      .optional()
      .describe('Also return files excluded by .gitignore (build output, node_modules).'),
  }),
  async run(input, ctx) {
    let pattern = input.pattern.replace(/^(?:\.\/)+/, '');
    let where = input.path;
    if (path.isAbsolute(pattern)) {
      // An absolute pattern names its own directory; split it off so matches stay relative.
      const scanned = picomatch.scan(pattern);
      where = (scanned.isGlob ? scanned.base : path.dirname(pattern)) || '/';
      pattern = scanned.isGlob ? scanned.glob : path.basename(pattern);
    }
    const root = await ctx.paths.forRead(where);
    requireDirectory(root, where);
    // Walk from the pattern's fixed prefix, so "src/**/*.ts" reads nothing outside src.
    const scanned = picomatch.scan(pattern);
    const base = (scanned.isGlob ? scanned.base : path.posix.dirname(pattern)).replace(/\/+$/, '');
    const fromRoot = base === '' || base === '.';
    const walkRoot = fromRoot ? root : await ctx.paths.forRead(path.join(where, base));
    const prefix = fromRoot ? '' : `${base}/`;
    // `**/*.ts` and the like: ripgrep's file-name filter lists exactly the matches, so none is tested again.
    const matches =
      ctx.ripgrep && nameFilterDecides(pattern) ? () => true : picomatch(pattern, { dot: true });

    const counts = { ignored: 0 };
    const includeIgnored = input.include_ignored ?? false;
    // Matches are counted and only the first MAX_SHOWN in walk order kept, as they arrive: paths
    // relative to the walk root, which sort as the shown ones do (the same prefix before each).
    const first = new FirstInWalkOrder(MAX_SHOWN);
    let total = 0;
    let complete = true;
    const keep = (relative: string): boolean => {
      if (!matches(prefix === '' ? relative : prefix + relative)) return true;
      if (total === MAX_COLLECTED) {
        complete = false;
        return false;
      }
      total++;
      first.add(relative);
      return true;
    };
    const nameGlob = nameFilter(pattern);
    if (fromRoot || isDirectory(walkRoot)) {
      if (ctx.ripgrep) {
        const readable = ctx.paths.readableUnder(walkRoot);
        await runRipgrep({
          binary: ctx.ripgrep,
          wrapper: ctx.commandWrapper,
          cwd: walkRoot,
          args: ['--files', '--null', ...walkFlags(!includeIgnored), ...nameGlob],
          signal: ctx.signal,
          separator: 0,
          // Denied files the sandbox could not hide (one created after it started) are kept out here.
          onRecord: (relative) => !readable(relative) || keep(relative),
        });
        if (total === 0 && !includeIgnored) {
          counts.ignored = await countIgnored({
            binary: ctx.ripgrep,
            wrapper: ctx.commandWrapper,
            cwd: walkRoot,
            signal: ctx.signal,
            extra: nameGlob,
          });
        }
      } else {
        const walk = walkFiles({
          root: walkRoot,
          workspace: ctx.workspace,
          signal: ctx.signal,
          paths: ctx.paths,
          gitignore: !includeIgnored,
          links: true,
          counts,
        });
        for await (const entry of walk) if (!keep(entry.relative)) break;
      }
    }
    ctx.signal.throwIfAborted();

    // Newest first when everything found is shown: at most MAX_SHOWN stats. Past that, walk
    // order: stat'ing thousands of files to pick the newest cost more than the walk itself.
    const kept = first.first();
    const byAge = total <= MAX_SHOWN;
    let shown: string[];
    if (byAge) {
      const realPath = joinTo(walkRoot);
      const dated: { relative: string; mtime: number }[] = [];
      for await (const item of mapOrdered(kept, STAT_CONCURRENCY, (relative) =>
        withMtime(relative, realPath(relative)),
      ))
        dated.push(item);
      ctx.signal.throwIfAborted();
      dated.sort((a, b) => b.mtime - a.mtime || (a.relative < b.relative ? -1 : 1));
      shown = dated.map((item) => prefix + item.relative);
    } else {
      shown = kept.map((relative) => prefix + relative);
    }
    const truncated = !byAge || !complete;
    const lines =
      shown.length > 0 ? shown : [noMatches(input.pattern, where, includeIgnored ? 0 : counts.ignored)];
    if (truncated) {
      const count = complete ? `${total}` : `more than ${MAX_COLLECTED}`;
      lines.push(
        `[showing the first ${shown.length} of ${count} matches in path order; narrow the pattern or path]`,
      );
    }
    return {
      output: lines.join('\n'),
      display: { type: 'matches', files: total, matches: total, truncated },
    };
  },
});

// Blocking stats: one directory's stat takes microseconds, a thread-pool round trip more.
function requireDirectory(real: string, shown: string): void {
  const info = statSync(real, { throwIfNoEntry: false });
  if (info === undefined) {
    throw new ToolFailure('not_found', `${shown} does not exist; use list_dir to see what is there`);
  }
  if (!info.isDirectory()) {
    throw new ToolFailure('invalid_input', `${shown} is a file, not a directory; pass its directory as path`);
  }
}

function isDirectory(real: string): boolean {
  try {
    return statSync(real, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

async function withMtime(relative: string, file: string): Promise<{ relative: string; mtime: number }> {
  // A file removed since the walk sorts last rather than failing the call.
  const info = await stat(file).catch(() => lstat(file).catch(() => undefined));
  return { relative, mtime: info?.mtimeMs ?? 0 };
}

function noMatches(pattern: string, where: string, ignored: number): string {
  let text = `no files match "${pattern}" in ${where}`;
  if (!pattern.includes('/'))
    text += `; without a "/" a pattern matches only files directly in ${where}, try "**/${pattern}"`;
  if (ignored > 0) {
    const what = ignored === 1 ? 'entry was' : 'entries were';
    text += `; ${ignored} gitignored ${what} skipped (pass include_ignored: true to search them)`;
  }
  return text;
}
