import { lstat, mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isWithin } from '../../shared/path-within.js';

/**
 * Creates a sub-agent's write roots that do not exist yet, as directories:
 * the sandbox can only bind what exists, and a model asking for `src/feature`
 * means a directory it will fill. Only inside the parent's own write roots,
 * and only below an existing ancestor reached without symlinks, so the
 * harness never creates anything the parent could not have created itself.
 * Returns the roots it could not create, with why.
 */
export async function ensureWriteRoots(
  roots: readonly string[],
  parentRoots: readonly string[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const root of roots) {
    if (await lstat(root).catch(() => undefined)) continue;
    if (!parentRoots.some((parent) => isWithin(parent, root))) {
      problems.push(`${root} does not exist and is not inside a root the parent may write`);
      continue;
    }
    let ancestor = path.dirname(root);
    while (!(await lstat(ancestor).catch(() => undefined)) && ancestor !== '/')
      ancestor = path.dirname(ancestor);
    const real = await realpath(ancestor).catch(() => undefined);
    if (real !== ancestor || !parentRoots.some((parent) => isWithin(parent, ancestor))) {
      problems.push(
        `${root} does not exist, and ${ancestor} is reached through a symbolic link or lies outside the parent's write roots`,
      );
      continue;
    }
    try {
      await mkdir(root, { recursive: true });
    } catch (error) {
      problems.push(`${root} could not be created (${(error as Error).message})`);
    }
  }
  return problems;
}
