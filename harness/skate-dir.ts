import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { OpenedDir } from './opened-dir.js';

/** `<workspace>/.skate`: session logs and the plan file. */
export function skateDir(workspace: string): string {
  return path.join(path.resolve(workspace), '.skate');
}

/** Ignores all of `.skate` except the workspace's settings (`!` re-includes a file in git). */
export const SKATE_GITIGNORE = '*\n!settings.json\n';

/**
 * Opens `<workspace>/.skate`, making it if missing, from the opened workspace and
 * never through a symbolic link (a create through one would land elsewhere).
 * When it is made here, it gets a `.gitignore` of everything but `settings.json`:
 * session logs hold everything the model read, and a `git add -A` must not
 * commit them, while a team's workspace settings are meant to be shared. An
 * existing folder is left as the user keeps it. The caller closes it.
 */
export async function openSkateDir(workspace: string): Promise<OpenedDir> {
  const dir = skateDir(workspace);
  await using root = await OpenedDir.open(await realpath(path.resolve(workspace)));
  const { dir: opened, created } = await root.dir('.skate', { create: true }).catch((error: Error) => {
    throw new Error(`${dir}: ${error.message}`);
  });
  // Made meanwhile by another run of ours, that one writes the .gitignore.
  if (created) await opened.file('.gitignore', SKATE_GITIGNORE).catch(() => undefined);
  return opened;
}

/** Makes sure `<workspace>/.skate` exists (see `openSkateDir`); returns its path. */
export async function ensureSkateDir(workspace: string): Promise<string> {
  await using _ = await openSkateDir(workspace);
  return skateDir(workspace);
}
