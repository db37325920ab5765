import { formatCost } from '../session/format-units.js';
import { listSessions } from '../session/session-store.js';
import type { SessionPick } from './ui-state.js';

/** `:sessions`: the workspace's sessions as `skate sessions list` finds them, top-level ones only. */
export async function sessionPicks(workspace: string, current: string | undefined): Promise<SessionPick[]> {
  const { sessions } = await listSessions(workspace);
  return sessions
    .filter((session) => !session.parentSessionId)
    .map((session) => ({
      id: session.id,
      // A fork starts with its source's title: say which is which.
      title: session.forkedFrom ? `(fork) ${session.title}` : session.title,
      lastActivity: session.lastActivity,
      tokens:
        session.total.usage.inputTokens +
        session.total.usage.outputTokens +
        session.total.usage.cacheReadTokens +
        session.total.usage.cacheWriteTokens,
      cost: formatCost(session.total),
      current: session.id === current,
    }));
}
