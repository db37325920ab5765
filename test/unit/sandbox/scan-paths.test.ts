import { readdirSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { createPathKinds } from '../../../harness/sandbox/path-kinds.js';
import { type ScanLimits, type ScanResult, scanPaths } from '../../../harness/sandbox/scan-paths.js';
import { tempDir } from '../../support/temp-dir.js';

/** The walk as it was before listings were read ahead: one directory after the other. */
function sequentialScan(root: string, patterns: string[], limits: ScanLimits): ScanResult {
  const match = patterns.length > 0 ? picomatch(patterns, { dot: true }) : () => false;
  const result: ScanResult = { matches: [], sockets: [], named: [], truncated: false };
  let seen = 0;
  let level = [root];
  for (let depth = 0; depth <= limits.maxDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (++seen > limits.maxEntries) return { ...result, truncated: true };
        const full = path.join(dir, entry.name);
        if (entry.isSocket()) result.sockets.push(full);
        if (limits.named?.has(entry.name) && (entry.isDirectory() || entry.isFile())) {
          result.named.push(full);
          continue;
        }
        if (match(full)) {
          result.matches.push({ path: full, kind: entry.isDirectory() ? 'dir' : 'file' });
          continue;
        }
        if (entry.isDirectory() && !limits.skipDirs.has(entry.name)) next.push(full);
      }
    }
    if (depth === limits.maxDepth && next.length > 0) result.truncated = true;
    level = next;
  }
  return result;
}

describe('scanPaths', () => {
  it('reads listings ahead yet finds, and stops at a limit, exactly as a sequential walk does', async () => {
    await using dir = await tempDir('scan-');
    // Wider than one batch of read-ahead, and deep enough for the depth limit to cut.
    for (let i = 0; i < 70; i++) {
      const sub = path.join(dir.path, `d${i}`, 'inner', 'deeper');
      await mkdir(sub, { recursive: true });
      await writeFile(path.join(dir.path, `d${i}`, i % 3 === 0 ? '.env' : 'a.txt'), '');
      await writeFile(path.join(sub, '.env.local'), '');
    }
    await mkdir(path.join(dir.path, 'd5', 'node_modules', 'x'), { recursive: true });
    await writeFile(path.join(dir.path, 'd5', 'node_modules', 'x', '.env'), '');
    const patterns = [`${dir.path}/**/.env`, `${dir.path}/**/.env.!(example)`];
    const skipDirs = new Set(['node_modules']);
    for (const maxEntries of [1, 69, 71, 150, 300, 100_000]) {
      for (const maxDepth of [0, 1, 2, 16]) {
        const limits = { maxEntries, maxDepth, skipDirs };
        expect(
          await scanPaths(dir.path, patterns, limits),
          `${maxEntries} entries, depth ${maxDepth}`,
        ).toEqual(sequentialScan(dir.path, patterns, limits));
      }
    }
    const whole = await scanPaths(dir.path, patterns, { maxEntries: 100_000, maxDepth: 16, skipDirs });
    expect(whole.truncated).toBe(false);
    expect(whole.matches).toHaveLength(24 + 70); // each third d*/.env, every .env.local; none under node_modules
  });

  it('collects entries by name, directories and files but not links, without descending into them', async () => {
    await using dir = await tempDir('scan-');
    await mkdir(path.join(dir.path, 'a', 'b', '.skate', 'sessions'), { recursive: true });
    await mkdir(path.join(dir.path, '.skate', 'inner', '.skate'), { recursive: true });
    await writeFile(path.join(dir.path, 'a', '.skate'), '');
    await mkdir(path.join(dir.path, 'c'));
    await symlink(path.join(dir.path, 'a', 'b', '.skate'), path.join(dir.path, 'c', '.skate'));
    const limits = {
      maxEntries: 1000,
      maxDepth: 16,
      skipDirs: new Set<string>(),
      named: new Set(['.skate']),
    };
    const scan = await scanPaths(dir.path, [], limits);
    expect(scan.named.sort()).toEqual(
      ['.skate', 'a/.skate', 'a/b/.skate'].map((p) => path.join(dir.path, p)).sort(),
    );
    expect(scan).toEqual(sequentialScan(dir.path, [], limits));
  });
});

describe('createPathKinds', () => {
  it('answers what a path is without following a last symlink, and the same after a prefetch', async () => {
    await using dir = await tempDir('kinds-');
    const file = path.join(dir.path, 'f');
    const sub = path.join(dir.path, 'sub');
    const link = path.join(dir.path, 'link');
    await writeFile(file, '');
    await mkdir(sub);
    await symlink(sub, link);
    const absent = path.join(dir.path, 'absent', 'deeper');
    for (const prefetched of [false, true]) {
      const kinds = createPathKinds();
      if (prefetched) kinds.prefetch([file, link, absent, path.join(sub, 'x')]);
      expect(await kinds.kind(file)).toBe('file');
      expect(await kinds.kind(sub)).toBe('dir');
      expect(await kinds.kind(link)).toBe('other');
      expect(await kinds.kind(absent)).toBeUndefined();
      expect(await kinds.isSymlink(link)).toBe(true);
      expect(await kinds.isSymlink(sub)).toBe(false);
      expect(await kinds.isSymlink(absent)).toBe(false);
    }
  });
});
