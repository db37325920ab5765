import module from 'node:module';
import path from 'node:path';
import { skateCacheDir } from '../skate-cache-dir.js';

/** Where the CLI keeps compiled code: inside the directory every executor sandbox keeps read-only. */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(skateCacheDir(env), 'code');
}

/**
 * Node ≥ 22.1 can keep V8's compiled code for ES modules on disk and reuse it on the next start:
 * here for the CLI's ESM parts (its entry, Ink); the CommonJS bundle has a cache of its own
 * (code-cache.ts). Node's default folder is under the OS temp folder, which other users and any
 * policy writing /tmp could fill with code the harness would run, so it goes to the protected
 * cache directory instead, unless NODE_COMPILE_CACHE chose one. Older Node lacks the function.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  const nodeModule = module as { enableCompileCache?: (dir?: string) => unknown };
  if (!nodeModule.enableCompileCache || env.NODE_COMPILE_CACHE) return;
  try {
    nodeModule.enableCompileCache(path.join(codeCacheDir(env), 'node'));
  } catch {
    // A read-only cache folder, say: start without the cache.
  }
}
