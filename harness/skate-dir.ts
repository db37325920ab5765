import { lstat, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** `<workspace>/.skate`: session logs and the plan file. */
export function skateDir(workspace: string): string {
  return path.join(path.resolve(workspace), '.skate');
}

/** Ignores all of `.skate` except the workspace's settings (`!` re-includes a file in git). */
export const SKATE_GITIGNORE = '*\n!settings.json\n';

/**
 * Makes sure `<workspace>/.skate` exists, refusing a symbolic link (a create
 * through it would land elsewhere). When it is made here, it gets a
 * `.gitignore` of everything but `settings.json`: session logs hold
 * everything the model read, and a `git add -A` must not commit them, while a
 * team's workspace settings are meant to be shared. An existing folder is
 * left as the user keeps it.
 */
export async function ensureSkateDir(workspace: string): Promise<string> {
  const dir = skateDir(workspace);
  const info = await lstat(dir).catch(() => undefined);
  if (info) {
    if (!info.isDirectory())
      throw new Error(`${dir} is not a directory (a symbolic link?); remove it and retry`);
    return dir;
  }
  try {
    await mkdir(dir);
  } catch (error) {
    // Made meanwhile by another run of ours: that one writes the .gitignore.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return ensureSkateDir(workspace);
    throw error;
  }
  await writeFile(path.join(dir, '.gitignore'), SKATE_GITIGNORE, { flag: 'wx', mode: 0o644 });
  return dir;
}
