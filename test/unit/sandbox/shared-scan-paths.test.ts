import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedScanPaths } from '../../../harness/sandbox/scan-paths.js';
import { tempDir } from '../../support/temp-dir.js';

const limits = { maxDepth: 4, maxEntries: 1_000, skipDirs: new Set<string>() };

describe('sharedScanPaths', () => {
  it('joins an identical scan still running, and walks again once it has ended', async () => {
    await using dir = await tempDir('scan-');
    await writeFile(path.join(dir.path, 'a.env'), '');
    const first = sharedScanPaths(dir.path, ['**/*.env'], limits);
    const sibling = sharedScanPaths(dir.path, ['**/*.env'], limits);
    const other = sharedScanPaths(dir.path, ['**/*.key'], limits);
    expect(sibling).toBe(first);
    expect(other).not.toBe(first);
    expect((await first).matches.map((m) => path.basename(m.path))).toEqual(['a.env']);

    // A finished scan is not reused: a file made after it is found by the next one.
    await writeFile(path.join(dir.path, 'b.env'), '');
    const later = sharedScanPaths(dir.path, ['**/*.env'], limits);
    expect(later).not.toBe(first);
    expect((await later).matches.map((m) => path.basename(m.path)).sort()).toEqual(['a.env', 'b.env']);
  });
});
