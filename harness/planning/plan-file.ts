import path from 'node:path';
import { openSkateDir } from '../skate-dir.js';

/** Where planning mode writes its plan, and `skate execute` reads it: `<workspace>/.skate/plan.md`. */
export function planFilePath(workspace: string): string {
  return path.join(workspace, '.skate', 'plan.md');
}

/**
 * Makes sure `.skate/plan.md` exists (empty if new): the sandbox binds the
 * plan policy's single writable file, and a bind needs it to exist. Made from
 * the opened workspace, one name at a time: a symlink on the way (`.skate`, or
 * `plan.md` itself) is refused, never followed, which would make the bind (and
 * this create) land somewhere else; an existing plan is kept.
 */
export async function ensurePlanFile(workspace: string): Promise<string> {
  await using skate = await openSkateDir(workspace);
  await skate.file('plan.md');
  return planFilePath(workspace);
}
