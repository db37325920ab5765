import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { ensureSkateDir } from '../skate-dir.js';

/** Where planning mode writes its plan, and `skate execute` reads it: `<workspace>/.skate/plan.md`. */
export function planFilePath(workspace: string): string {
  return path.join(workspace, '.skate', 'plan.md');
}

/**
 * Makes sure `.skate/plan.md` exists (empty if new) before a plan executor
 * starts: the sandbox binds the single writable file, and a bind needs it to
 * exist. Refuses symlinks on the way, which would make the bind (and this
 * create) land somewhere else.
 */
export async function ensurePlanFile(workspace: string): Promise<string> {
  const file = planFilePath(workspace);
  await ensureSkateDir(workspace);
  // O_NOFOLLOW: a plan.md that is a link is refused, never followed; no O_TRUNC: an existing plan is kept.
  const handle = await open(file, constants.O_CREAT | constants.O_WRONLY | constants.O_NOFOLLOW, 0o644).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ELOOP') throw new Error(`${file} is a symbolic link; remove it and retry`);
      throw error;
    },
  );
  await handle.close();
  return file;
}
