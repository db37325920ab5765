import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';

export interface ScanLimits {
  maxDepth: number;
  maxEntries: number;
  /** Directory names not descended into (their contents are too many, or not ours). */
  skipDirs: ReadonlySet<string>;
  /** Names to collect wherever they are found (files or directories, not links), e.g. `.skate`. */
  named?: ReadonlySet<string>;
  /** Of `named`, the directories still walked into (`.claude`, of which only `agents` is protected). */
  walkedNamed?: ReadonlySet<string>;
}

export interface ScanResult {
  /** Paths matching any of the patterns, with what they are. */
  matches: { path: string; kind: 'file' | 'dir' }[];
  /** Unix socket files found. */
  sockets: string[];
  /** Entries with one of `limits.named`'s names (not descended into unless `walkedNamed`). */
  named: string[];
  /** True when a limit stopped the walk before it saw everything. */
  truncated: boolean;
}

/**
 * Directories read at once: a level's listings overlap on the thread pool instead of each waiting
 * for the last (a home scan went from ~10 ms to ~3 ms here). Bounded, so a wide level does not
 * queue thousands of reads, and a walk cut short by `maxEntries` reads at most this many extra.
 */
const READ_AHEAD = 32;

/**
 * Walks a tree breadth-first within limits, collecting paths that match glob
 * patterns and unix socket files. Used to turn deny globs (`**\/.env`) into
 * concrete mounts and to find host sockets to mask; bubblewrap itself only
 * understands concrete paths. Listings are read ahead in batches but taken in
 * order, so the result (and where a limit cuts it) is that of a sequential walk.
 */
export async function scanPaths(
  root: string,
  patterns: readonly string[],
  limits: ScanLimits,
): Promise<ScanResult> {
  const match = patterns.length > 0 ? picomatch([...patterns], { dot: true }) : () => false;
  const result: ScanResult = { matches: [], sockets: [], named: [], truncated: false };
  let seen = 0;
  let level = [root];
  for (let depth = 0; depth <= limits.maxDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (let start = 0; start < level.length; start += READ_AHEAD) {
      const dirs = level.slice(start, start + READ_AHEAD);
      const listings = await Promise.all(dirs.map(listDir));
      for (const [i, entries] of listings.entries()) {
        const dir = dirs[i]!;
        for (const entry of entries) {
          if (++seen > limits.maxEntries) {
            result.truncated = true;
            return result;
          }
          const full = path.join(dir, entry.name);
          if (entry.isSocket()) result.sockets.push(full);
          if (limits.named?.has(entry.name) && (entry.isDirectory() || entry.isFile())) {
            result.named.push(full);
            if (!(entry.isDirectory() && limits.walkedNamed?.has(entry.name))) continue;
          }
          if (match(full)) {
            result.matches.push({ path: full, kind: entry.isDirectory() ? 'dir' : 'file' });
            continue;
          }
          if (entry.isDirectory() && !limits.skipDirs.has(entry.name)) next.push(full);
        }
      }
    }
    if (depth === limits.maxDepth && next.length > 0) result.truncated = true;
    level = next;
  }
  return result;
}

/** A directory's entries; none when it cannot be read (gone, or not a directory). */
function listDir(dir: string): Promise<Dirent[]> {
  return readdir(dir, { withFileTypes: true }).catch(() => []);
}

const running = new Map<string, Promise<ScanResult>>();

/**
 * `scanPaths`, joining an identical scan that is still running. Sibling
 * sub-agents start their sandboxes at the same moment under the same policy,
 * and each walking the same trees again cost the harness's one thread a few ms
 * per sandbox here for an empty workspace and home, far more for a real
 * checkout. A finished scan is never reused: a result is always of a walk
 * that was under way when the caller asked.
 */
export function sharedScanPaths(
  root: string,
  patterns: readonly string[],
  limits: ScanLimits,
): Promise<ScanResult> {
  const key = JSON.stringify([
    root,
    patterns,
    limits.maxDepth,
    limits.maxEntries,
    [...limits.skipDirs],
    [...(limits.named ?? [])],
    [...(limits.walkedNamed ?? [])],
  ]);
  let scan = running.get(key);
  if (!scan) {
    scan = scanPaths(root, patterns, limits).finally(() => running.delete(key));
    running.set(key, scan);
  }
  return scan;
}
