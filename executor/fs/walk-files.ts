import type { Dirent } from 'node:fs';
import { constants } from 'node:fs';
import { open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isWithin } from '../../shared/path-within.js';
import { fdPath, openedPath, type PathGuard } from '../path-guard.js';

/** A file found by `walkFiles`. */
export interface WalkEntry {
  /** Absolute path. Real unless `kind` is `symlink`: the walk never descends through a link. */
  readonly path: string;
  /** Path from the walk's root, `/`-separated. */
  readonly relative: string;
  /** `symlink`: a link to a readable regular file, yielded only when asked for. Links to directories are never followed. */
  readonly kind: 'file' | 'symlink';
}

export interface WalkOptions {
  /** Real, absolute path of the directory to walk. */
  readonly root: string;
  readonly workspace: string;
  readonly signal: AbortSignal;
  /** What the policy rejects is neither yielded nor descended into. */
  readonly paths: Pick<PathGuard, 'readable'>;
  /** Honour `.gitignore` files inside the tree and above it, up to the repository or workspace root. */
  readonly gitignore: boolean;
  /** Also yield symlinks to readable files (resolving each costs two system calls). */
  readonly links?: boolean;
  /** Filled in as the walk goes, so a tool can say why it found nothing. */
  readonly counts?: { ignored: number };
}

/** One `.gitignore`, with how to turn a walk-relative path into a path relative to its directory. */
interface RuleSet {
  readonly rules: Ignore;
  readonly prefix: string;
  readonly strip: number;
}

interface Frame {
  readonly dir: string;
  readonly relative: string;
  /** Grows by the directory's own `.gitignore` once its entries are read. */
  rules: readonly RuleSet[];
  entries?: Dirent[];
  index: number;
}

/** Largest `.gitignore` read; anything bigger is not a hand-written ignore file. */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/**
 * Yields the files under a directory in path order, depth first: the walk glob and grep share.
 * Always skips `.git`; with `gitignore`, skips what `.gitignore` files exclude, nested ones
 * included. Stops with the signal's reason when the call is cancelled.
 */
export async function* walkFiles(options: WalkOptions): AsyncGenerator<WalkEntry> {
  const { signal, paths, counts } = options;
  const stack: Frame[] = [
    {
      dir: options.root,
      relative: '',
      rules: options.gitignore ? await ancestorRules(options) : [],
      index: 0,
    },
  ];
  while (stack.length > 0) {
    signal.throwIfAborted();
    const frame = stack[stack.length - 1]!;
    if (!frame.entries) {
      frame.entries = await listDirectory(frame.dir);
      if (options.gitignore && frame.entries.some((e) => e.name === '.gitignore' && e.isFile())) {
        const own = await loadRules(path.join(frame.dir, '.gitignore'), paths);
        if (own) {
          const strip = frame.relative === '' ? 0 : frame.relative.length + 1;
          frame.rules = [...frame.rules, { rules: own, prefix: '', strip }];
        }
      }
    }
    const entry = frame.entries[frame.index++];
    if (!entry) {
      stack.pop();
      continue;
    }
    const relative = frame.relative === '' ? entry.name : `${frame.relative}/${entry.name}`;
    const full = path.join(frame.dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === '.git') continue;
      if (isIgnored(frame.rules, `${relative}/`)) {
        if (counts) counts.ignored++;
        continue;
      }
      if (!paths.readable(full)) continue;
      stack.push({ dir: full, relative, rules: frame.rules, index: 0 });
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      if (isIgnored(frame.rules, relative)) {
        if (counts) counts.ignored++;
        continue;
      }
      if (entry.isFile()) {
        if (paths.readable(full)) yield { path: full, relative, kind: 'file' };
      } else if (options.links && (await isReadableFileLink(full, paths))) {
        yield { path: full, relative, kind: 'symlink' };
      }
    }
  }
}

/**
 * The entries of `dir`, a real path the walk checked; read from a descriptor that still reaches it,
 * so a directory swapped for a symlink meanwhile does not list what it points to.
 */
async function listDirectory(dir: string): Promise<Dirent[]> {
  try {
    const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NONBLOCK);
    let entries: Dirent[];
    try {
      const opened = openedPath(handle.fd);
      if (opened !== undefined && opened !== dir) return [];
      entries = await readdir(opened === undefined ? dir : fdPath(handle.fd), { withFileTypes: true });
    } finally {
      await handle.close();
    }
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    // A directory removed or locked while we walk is skipped, not fatal to the whole search.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR' || code === 'EPERM') return [];
    throw error;
  }
}

/** Whether the deepest `.gitignore` with a rule for the path excludes it (directories end in `/`). */
function isIgnored(sets: readonly RuleSet[], relative: string): boolean {
  for (let i = sets.length - 1; i >= 0; i--) {
    const set = sets[i]!;
    const verdict = set.rules.test(set.prefix + relative.slice(set.strip));
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

async function loadRules(file: string, paths: Pick<PathGuard, 'readable'>): Promise<Ignore | undefined> {
  if (!paths.readable(file)) return undefined;
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > MAX_GITIGNORE_BYTES) return undefined;
    return ignore({ ignoreCase: false }).add(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The `.gitignore` files above the root that git would apply: up to the repository root (the
 * directory holding `.git`) or, inside the workspace, the workspace root, whichever comes first.
 * A file that excludes the root itself is left out: asking for an ignored directory by name
 * means searching it, as ripgrep does.
 */
async function ancestorRules(options: WalkOptions): Promise<RuleSet[]> {
  const { root, workspace, paths } = options;
  if (await exists(path.join(root, '.git'))) return [];
  const insideWorkspace = isWithin(workspace, root) && root !== workspace;
  const found: RuleSet[] = [];
  let reachedTop = false;
  for (let dir = path.dirname(root); ; dir = path.dirname(dir)) {
    const rules = await loadRules(path.join(dir, '.gitignore'), paths);
    const prefix = `${path.relative(dir, root)}/`;
    if (rules && !rules.test(prefix).ignored) found.unshift({ rules, prefix, strip: 0 });
    if ((insideWorkspace && dir === workspace) || (await exists(path.join(dir, '.git')))) {
      reachedTop = true;
      break;
    }
    if (dir === path.dirname(dir)) break;
  }
  // Outside any repository and outside the workspace, no .gitignore above the root applies.
  return reachedTop ? found : [];
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

async function isReadableFileLink(link: string, paths: Pick<PathGuard, 'readable'>): Promise<boolean> {
  try {
    const real = await realpath(link);
    return paths.readable(real) && (await stat(real)).isFile();
  } catch {
    return false;
  }
}
