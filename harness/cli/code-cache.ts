import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { writeFileAtomically } from '../write-file-atomically.js';
import { COMMAND_NAMES } from './command-names.js';

/** A CommonJS file compiled with V8's code cache; `save()` writes the cache when it was missing or refused. */
export interface CachedScript {
  /** Evaluates the file as a CommonJS module and returns its exports. */
  run(require: NodeJS.Require): unknown;
  /** Synchronous (safe in an `exit` handler); does nothing after a hit or a first save. */
  save(): void;
  readonly cache: 'hit' | 'miss' | 'rejected';
}

/** Caches of other builds kept at most this long, and at most this many files in all. */
const STALE_MS = 24 * 60 * 60 * 1000;
const MAX_FILES = 24;

/**
 * Which part of the CLI a command line runs. V8 caches the functions that had been compiled when
 * the cache was made, so each kind of run keeps its own: a cache made by `skate --version` would
 * otherwise leave `skate -p` compiling the agent on every start.
 */
export function cacheProfile(argv: readonly string[]): string {
  const [first] = argv;
  if (argv.includes('-p') || argv.includes('--print')) return 'print';
  if ((COMMAND_NAMES as readonly string[]).includes(first ?? '')) return first as string;
  if (first && /^(-v|--version|-h|--help|help)$/.test(first)) return 'info';
  return 'agent';
}

/**
 * The cache file's name: the bundle's content hash, the profile, and the Node version and
 * architecture it was made by. V8 itself refuses another V8 version or other flags, but it only
 * compares the source's length: a cache of another build must never be offered.
 */
export function codeCacheFile(dir: string, bundleHash: string, profile: string): string {
  return path.join(dir, `cli-${bundleHash}-${profile}-${process.version}-${process.arch}.v8`);
}

/**
 * Compiles `file` with the cache at `cacheFile` when it can be read. The file is one function
 * expression, `(function (exports, require, module, __filename, __dirname) {…})`, in plain ASCII
 * (scripts/bundle.mjs checks both): read as Latin-1, which for ASCII is the same text, made
 * without decoding.
 */
export function compileCached(file: string, cacheFile: string): CachedScript {
  const source = readFileSync(file, 'latin1');
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {}
  const script = new vm.Script(source, { filename: file, cachedData });
  const cache = cachedData === undefined ? 'miss' : script.cachedDataRejected ? 'rejected' : 'hit';
  let saved = cache === 'hit';
  return {
    cache,
    run(require: NodeJS.Require): unknown {
      const module = { exports: {} as unknown };
      const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
      wrapper.call(module.exports, module.exports, require, module, file, path.dirname(file));
      return module.exports;
    },
    save(): void {
      if (saved) return;
      saved = true;
      writeFileAtomically(cacheFile, script.createCachedData());
      pruneOthers(path.dirname(cacheFile), path.basename(cacheFile).split('-', 2).join('-'));
    },
  };
}

/** Drops other builds' caches after a day, and the oldest caches beyond MAX_FILES. */
function pruneOthers(dir: string, build: string): void {
  try {
    const now = Date.now();
    const files = readdirSync(dir)
      .filter((name) => name.startsWith('cli-') && name.endsWith('.v8'))
      .map((name) => ({ name, mtime: statSync(path.join(dir, name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    files.forEach(({ name, mtime }, index) => {
      const stale = !name.startsWith(`${build}-`) && now - mtime > STALE_MS;
      if (stale || index >= MAX_FILES) rmSync(path.join(dir, name), { force: true });
    });
  } catch {}
}
