import { unlink } from 'node:fs/promises';
import { SessionError } from './session-error.js';
import { lockSession } from './session-lock.js';
import { sessionFile } from './session-paths.js';
import { listSessions, resolveSession } from './session-store.js';

/**
 * Deletes session `id` of a workspace (its whole id, not a prefix) and the
 * sessions of its sub-agents. A session another process has open (its lock is
 * held) is refused with `in_use`, and nothing is deleted; an unknown id is
 * `missing`. Resolves to the ids deleted, the session's first.
 */
export async function deleteSession(workspace: string, id: string): Promise<string[]> {
  const { id: found } = await resolveSession(workspace, id);
  if (found !== id.trim().toLowerCase())
    throw new SessionError('missing', `no session ${id} (give its whole id)`);
  const ids = [found, ...subAgentSessions(found, (await listSessions(workspace)).sessions)];
  // Every lock first, so a session in use leaves all of them in place.
  const unlocks: (() => Promise<void>)[] = [];
  try {
    for (const each of ids) unlocks.push(await lockSession(sessionFile(workspace, each)));
    for (const each of ids) {
      const file = sessionFile(workspace, each);
      await unlink(file).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw SessionError.fromUnknown(error, file);
      });
    }
  } finally {
    await Promise.all(unlocks.map((unlock) => unlock()));
  }
  return ids;
}

/** The sessions below `id` through their headers' `parentSessionId`, at any depth. */
function subAgentSessions(
  id: string,
  sessions: readonly { id: string; parentSessionId?: string | undefined }[],
): string[] {
  const below: string[] = [];
  const queue = [id];
  for (let parent = queue.pop(); parent !== undefined; parent = queue.pop()) {
    for (const session of sessions) {
      if (session.parentSessionId !== parent || below.includes(session.id)) continue;
      below.push(session.id);
      queue.push(session.id);
    }
  }
  return below;
}
