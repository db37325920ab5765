import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';

/** What a path is on the host, without following a final symlink; undefined when absent. */
export type PathKind = 'file' | 'dir' | 'other' | undefined;

function kindOf(info: Stats | undefined): PathKind {
  if (!info) return undefined;
  if (info.isDirectory()) return 'dir';
  return info.isFile() ? 'file' : 'other';
}

/** One `lstat` per path for the length of one sandbox plan. */
export interface PathKinds {
  kind(p: string): Promise<PathKind>;
  isSymlink(p: string): Promise<boolean>;
  /** Starts the `lstat`s of these paths and of their ancestors now, all at once. */
  prefetch(paths: Iterable<string>): void;
}

/**
 * A plan asks about a hundred paths (policy entries, their parents, the roots), one after the
 * other as its checks decide what to mount. Issued together up front, those reads overlap on
 * the thread pool instead of each waiting for the last; the checks then find them done. The
 * answers are one snapshot of the host taken as the plan starts, as each read was before.
 */
export function createPathKinds(): PathKinds {
  const stats = new Map<string, Promise<Stats | undefined>>();
  const statOf = (p: string): Promise<Stats | undefined> => {
    let pending = stats.get(p);
    if (!pending) {
      pending = lstat(p).catch(() => undefined);
      stats.set(p, pending);
    }
    return pending;
  };
  return {
    async kind(p) {
      return kindOf(await statOf(p));
    },
    async isSymlink(p) {
      return (await statOf(p))?.isSymbolicLink() ?? false;
    },
    prefetch(paths) {
      for (const p of paths) {
        for (let dir = p; !stats.has(dir); dir = path.dirname(dir)) {
          void statOf(dir);
          if (path.dirname(dir) === dir) break;
        }
      }
    },
  };
}
