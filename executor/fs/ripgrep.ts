import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/**
 * The `rg` binary on PATH, or undefined: grep and glob then search in JavaScript.
 * Looked up inside the executor, so it is what the sandbox lets commands run.
 */
export function findRipgrep(searchPath: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (searchPath ?? '').split(':')) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, 'rg');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * Flags that make ripgrep walk as the JavaScript walk does: dotfiles included, `.git` skipped,
 * `.gitignore` files honoured with or without a repository, and no other ignore or config file
 * (`.ignore`, `.rgignore`, the global excludes, `RIPGREP_CONFIG_PATH`) changing what is searched.
 */
export function walkFlags(gitignore: boolean): string[] {
  return [
    '--no-config',
    '--hidden',
    '--glob=!.git',
    '--no-ignore-dot',
    '--no-ignore-global',
    '--no-ignore-exclude',
    '--no-require-git',
    ...(gitignore ? [] : ['--no-ignore-vcs']),
  ];
}

/**
 * Restricts ripgrep to files named like the glob's last segment, when that is a plain name glob
 * (`*.ts`, `*.{ts,tsx}`): a superset of the glob's matches, which the caller still checks. A file
 * type, not --glob: ripgrep's --glob would also bring back gitignored files that match it.
 */
export function nameFilter(glob: string): string[] {
  const last = glob.slice(glob.lastIndexOf('/') + 1);
  const plain = /^[\w.*?-]+$|^[\w.*?-]*\{[\w.,-]+\}[\w.*?-]*$/.test(last) && last !== '**';
  return plain ? [`--type-add=skate:${last}`, '--type=skate'] : [];
}

export interface RipgrepOptions {
  readonly binary: string;
  /** skate-confine's argv prefix: rg runs confined like any command. */
  readonly wrapper: readonly string[];
  readonly cwd: string;
  readonly args: readonly string[];
  readonly signal: AbortSignal;
  /** Byte that ends each record on stdout: NUL for `--null` file lists, newline otherwise. */
  readonly separator: 0 | 10;
  /** Called with each record; returning `false` stops ripgrep (a cap was reached). */
  onRecord(record: string): boolean | undefined;
}

export interface RipgrepExit {
  /** 0: matches, 1: none, 2: an error (possibly alongside results). Null when stopped. */
  readonly code: number | null;
  /** Whether `onRecord` asked to stop before ripgrep was done. */
  readonly stopped: boolean;
  readonly stderr: string;
}

const MAX_STDERR_BYTES = 16 * 1024;

/**
 * Runs ripgrep and hands its output over record by record. Stopping (a cap reached, the call
 * cancelled) kills its process group at once: nothing is searched past what will be shown.
 */
export function runRipgrep(options: RipgrepOptions): Promise<RipgrepExit> {
  const { signal, separator, onRecord } = options;
  signal.throwIfAborted();
  const [program, ...args] = [...options.wrapper, options.binary, ...options.args] as [string, ...string[]];
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a stop kills skate-confine and rg together.
    detached: true,
  });
  let stopped = false;
  const stop = () => {
    if (stopped || child.pid === undefined) return;
    stopped = true;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {}
  };
  signal.addEventListener('abort', stop, { once: true });
  // Whole chunks are decoded (a separator byte never falls inside a UTF-8 character), and records
  // are cut from the text: cheaper than a Buffer view and a decode per record.
  const decoder = new StringDecoder('utf8');
  const mark = String.fromCharCode(separator);
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    if (stopped) return;
    const text = decoder.write(chunk);
    let at = text.indexOf(mark);
    if (at === -1) {
      pending += text;
      return;
    }
    let record = pending + text.slice(0, at);
    for (;;) {
      if (onRecord(record) === false) {
        stop();
        return;
      }
      const from = at + 1;
      at = text.indexOf(mark, from);
      if (at === -1) {
        pending = text.slice(from);
        return;
      }
      record = text.slice(from, at);
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      signal.removeEventListener('abort', stop);
      reject(error);
    });
    child.once('close', (code) => {
      signal.removeEventListener('abort', stop);
      const last = stopped ? '' : pending + decoder.end();
      if (last.length > 0) onRecord(last);
      resolve({ code: stopped ? null : code, stopped, stderr });
    });
  });
}

/** Whether ripgrep refused the pattern (look-around, backreferences): the JavaScript search takes it. */
export function rejectedPattern(exit: RipgrepExit): boolean {
  return exit.code === 2 && /regex parse error|error parsing|not allowed in a regex/i.test(exit.stderr);
}

/**
 * `path.join(dir, relative)` for the relative paths ripgrep prints, which are already normal
 * (no `.`, `..` or doubled `/`): a concatenation, without join's normalising pass over each.
 */
export function joinTo(dir: string): (relative: string) => string {
  if (dir === '.' || dir === '') return (relative) => relative;
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return (relative) => prefix + relative;
}

/** Sorts `/`-separated paths as a depth-first walk with names sorted per directory yields them. */
export function sortWalkOrder<T>(items: readonly T[], pathOf: (item: T) => string): T[] {
  // "/" sorts after "." and "-"; a NUL in its place sorts a directory's files right after its name.
  const keyed = items.map((item) => ({ item, key: pathOf(item).replaceAll('/', '\0') }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map(({ item }) => item);
}

/**
 * The first `count` items of `sortWalkOrder`, without sorting the rest: items are grouped by the
 * path segment at `offset`, groups taken in name order, and only the group the cut falls in is
 * looked into further. Thousands of glob matches cost a grouping pass and a sort of `count`.
 */
export function firstInWalkOrder<T>(
  items: readonly T[],
  pathOf: (item: T) => string,
  count: number,
  offset = 0,
): T[] {
  // Small groups, and (defensively) paths exhausted by repeated names, are sorted outright.
  if (items.length <= 2 * count || items.length <= 64 || offset > 4096) {
    return sortWalkOrder(items, pathOf).slice(0, count);
  }
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const full = pathOf(item);
    const slash = full.indexOf('/', offset);
    const name = slash === -1 ? full.slice(offset) : full.slice(offset, slash);
    const group = groups.get(name);
    if (group) group.push(item);
    else groups.set(name, [item]);
  }
  const first: T[] = [];
  // Names in code-unit order: a directory's entries follow its name as in the walk.
  for (const name of [...groups.keys()].sort()) {
    const group = groups.get(name)!;
    const left = count - first.length;
    first.push(
      ...(group.length === 1 ? group : firstInWalkOrder(group, pathOf, left, offset + name.length + 1)),
    );
    if (first.length >= count) break;
  }
  return first.slice(0, count);
}

/** Files a gitignore hides under `cwd`: the difference between two listings, run together. */
export async function countIgnored(
  options: Omit<RipgrepOptions, 'args' | 'separator' | 'onRecord'> & { extra: readonly string[] },
): Promise<number> {
  const count = async (gitignore: boolean): Promise<number> => {
    let n = 0;
    await runRipgrep({
      ...options,
      args: ['--files', '--null', ...walkFlags(gitignore), ...options.extra],
      separator: 0,
      onRecord: () => {
        n++;
        return undefined;
      },
    });
    return n;
  };
  const [all, kept] = await Promise.all([count(false), count(true)]);
  return Math.max(0, all - kept);
}
