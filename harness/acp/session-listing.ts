import { type ListSessionsResponse, RequestError, type SessionInfo } from '@agentclientprotocol/sdk';
import type { SessionSummary } from '../session/session-summary.js';
import { truncate } from '../session/session-summary.js';

/** Sessions per `session/list` page. */
export const LIST_PAGE_SIZE = 50;

const TITLE_CHARS = 80;

/** Where a page ended: the last session's place in the newest-first order. */
interface Cursor {
  /** Its last activity. */
  t: string;
  /** Its tie-breaker (last event id, else session id), as `listSessions` orders them. */
  k: string;
}

/**
 * One `session/list` page of a workspace's top-level sessions (sub-agents'
 * sessions are part of their parent's), newest first, as `listSessions`
 * orders them. The cursor names the last session shown rather than an
 * offset, so sessions started between two pages do not repeat one.
 */
export function listPage(
  sessions: readonly SessionSummary[],
  cursor: string | null | undefined,
  pageSize = LIST_PAGE_SIZE,
): ListSessionsResponse {
  const after = cursor ? decodeCursor(cursor) : undefined;
  const listed = sessions.filter(
    (session) => !session.parentSessionId && (!after || olderThan(session, after)),
  );
  const page = listed.slice(0, pageSize);
  const last = page.at(-1);
  return {
    sessions: page.map(sessionInfo),
    ...(listed.length > pageSize && last && { nextCursor: encodeCursor(placeOf(last)) }),
  };
}

/** A session as ACP lists it: a stored title when the log has one, else its first prompt. */
export function sessionInfo(session: SessionSummary): SessionInfo {
  // Session titles are being added to the log (`title` on the summary); until then, the first prompt.
  const stored = 'title' in session && typeof session.title === 'string' ? session.title : undefined;
  const title = stored || truncate(session.firstPrompt, TITLE_CHARS);
  return {
    sessionId: session.id,
    cwd: session.cwd,
    ...(title && { title }),
    updatedAt: session.lastActivity,
  };
}

function placeOf(session: SessionSummary): Cursor {
  return { t: session.lastActivity, k: session.lastEventId ?? session.id };
}

/** Whether `session` comes after `cursor` in the newest-first order. */
function olderThan(session: SessionSummary, cursor: Cursor): boolean {
  const { t, k } = placeOf(session);
  return t < cursor.t || (t === cursor.t && k < cursor.k);
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof value.t === 'string' && typeof value.k === 'string') return { t: value.t, k: value.k };
  } catch {
    // Reported below.
  }
  throw RequestError.invalidParams(
    { cursor: text },
    'unknown cursor: pass a nextCursor from an earlier session/list',
  );
}
