import { lstat } from 'node:fs/promises';
import { isWithin } from '../../shared/path-within.js';
import { makeDirsBeneath } from '../opened-dir.js';

/**
 * Creates a sub-agent's write roots that do not exist yet, as directories:
 * the sandbox can only bind what exists, and a model asking for `src/feature`
 * means a directory it will fill. Only inside the parent's own write roots, and
 * one name at a time from the opened parent root, never through a symbolic link:
 * the parent's sandbox runs meanwhile and could swap any directory on the way
 * for a link elsewhere. Returns the roots it could not create, with why.
 */
export async function ensureWriteRoots(
  roots: readonly string[],
  parentRoots: readonly string[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const root of roots) {
    if (await lstat(root).catch(() => undefined)) continue;
    // The deepest parent root holding it: the fewest names to create.
    const parent = parentRoots
      .filter((candidate) => isWithin(candidate, root) && candidate !== root)
      .sort((a, b) => b.length - a.length)[0];
    if (!parent) {
      problems.push(`${root} does not exist and is not inside a root the parent may write`);
      continue;
    }
    try {
      await makeDirsBeneath(parent, root);
    } catch (error) {
      problems.push(`${root} could not be created (${(error as Error).message})`);
    }
  }
  return problems;
}
