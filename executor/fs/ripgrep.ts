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

/**
 * Whether `nameFilter` alone decides `glob`: a plain directory prefix, then `**` and a `*` with a
 * literal end (`**` + `/*.ts`, `src/**` + `/*.d.ts`). Run from that prefix, ripgrep lists exactly the
 * matches, so they need no second test.
 */
export function nameFilterDecides(glob: string): boolean {
  return /^(?:\w[\w.-]*\/)*\*\*\/\*[\w.-]*$/.test(glob);
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
 * cancelled) kills it at once: nothing is searched past what will be shown.
 */
export function runRipgrep(options: RipgrepOptions): Promise<RipgrepExit> {
  const { signal, separator, onRecord } = options;
  signal.throwIfAborted();
  const [program, ...args] = [...options.wrapper, options.binary, ...options.args] as [string, ...string[]];
  // Not detached: a session of its own would also give rg a scheduler autogroup of its own, in
  // which it ran 20-30% slower here while other processes were busy.
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stopped = false;
  const stop = () => {
    if (stopped || child.pid === undefined) return;
    stopped = true;
    // rg starts nothing, so killing it is enough; the wrapper (skate-confine --subreaper) kills
    // everything it started on SIGTERM and then exits.
    try {
      child.kill(options.wrapper.length > 0 ? 'SIGTERM' : 'SIGKILL');
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
 * Keeps the first `count` paths in walk order of those added, in any order, without holding the
 * rest: a path past the current `count`th is refused with one comparison, and the kept ones are
 * sorted and cut back to `count` whenever twice as many have piled up. They are kept as sort keys,
 * "/" replaced by NUL (which no path holds), so those sorts are plain string sorts.
 */
export class FirstInWalkOrder {
  private readonly kept: string[] = [];
  /** The `count`th key once `count` are kept: nothing at or past it can be among the first. */
  private last: string | undefined;

  constructor(private readonly count: number) {}

  add(path: string): void {
    if (this.last !== undefined && !beforeKey(path, this.last)) return;
    this.kept.push(path.replaceAll('/', '\0'));
    if (this.kept.length >= 2 * this.count) this.cut();
  }

  /** The first `count` paths added (all of them when fewer), in walk order. */
  first(): string[] {
    this.cut();
    return this.kept.map((key) => key.replaceAll('\0', '/'));
  }

  private cut(): void {
    this.kept.sort();
    if (this.kept.length >= this.count) {
      this.kept.length = this.count;
      this.last = this.kept[this.count - 1];
    }
  }
}

/** Whether `path` sorts before `key`, a path with its "/" already replaced by NUL, in walk order. */
function beforeKey(path: string, key: string): boolean {
  const n = Math.min(path.length, key.length);
  for (let i = 0; i < n; i++) {
    let x = path.charCodeAt(i);
    if (x === 47) x = 0;
    const y = key.charCodeAt(i);
    if (x !== y) return x < y;
  }
  return path.length < key.length;
}

type ListingOptions = Omit<RipgrepOptions, 'args' | 'separator' | 'onRecord'> & { extra: readonly string[] };

/** Files a gitignore hides under `cwd`: the difference between two listings, run together. */
export async function countIgnored(options: ListingOptions): Promise<number> {
  const [all, kept] = await Promise.all([countListed(options, false), countListed(options, true)]);
  return Math.max(0, all - kept);
}

/**
 * What a search under `cwd` left out, from three listings run together: files a gitignore hides,
 * and files ripgrep skipped for being over `maxFileBytes` (it does so without a word).
 */
export async function countSkipped(
  options: ListingOptions & { maxFileBytes: number },
): Promise<{ ignored: number; tooLarge: number }> {
  const [all, kept, small] = await Promise.all([
    countListed(options, false),
    countListed(options, true),
    countListed(options, true, [`--max-filesize=${options.maxFileBytes}`]),
  ]);
  return { ignored: Math.max(0, all - kept), tooLarge: Math.max(0, kept - small) };
}

async function countListed(
  options: ListingOptions,
  gitignore: boolean,
  more: string[] = [],
): Promise<number> {
  let n = 0;
  await runRipgrep({
    ...options,
    args: ['--files', '--null', ...walkFlags(gitignore), ...more, ...options.extra],
    separator: 0,
    onRecord: () => {
      n++;
      return undefined;
    },
  });
  return n;
}
