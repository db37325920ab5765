import chalk from 'chalk';
import { formatTokens, relativeTime } from '../../session/format-units.js';
import type { SessionPick } from '../ui-state.js';

/** At most this many sessions are listed at once; the list scrolls with the selection. */
export const PICKER_ROWS = 10;

/**
 * The `:sessions` picker's body: one row per session (title, when, tokens,
 * cost), the selected one inverted, the current one marked, scrolled so the
 * selection is always in view.
 */
export function sessionPickerLines(
  sessions: readonly SessionPick[],
  selected: number,
  now: number,
  width: number,
): string[] {
  if (sessions.length === 0) return [chalk.dim('no sessions yet in this workspace')];
  const rows = Math.min(PICKER_ROWS, sessions.length);
  const first = Math.min(Math.max(0, selected - rows + 1), sessions.length - rows);
  const clock = new Date(now);
  const lines = sessions.slice(first, first + rows).map((session, i) => {
    const when = relativeTime(session.lastActivity, clock).padStart(9);
    const figures = `${when}  ${formatTokens(session.tokens).padStart(6)} tok  ${session.cost.padStart(6)}`;
    const mark = session.current ? '• ' : '  ';
    const room = Math.max(8, width - figures.length - mark.length - 6);
    const title = session.title === '' ? '(no prompt)' : session.title;
    const cut = title.length > room ? `${title.slice(0, room - 1)}…` : title.padEnd(room);
    const line = `${mark}${cut}  ${figures}`;
    return first + i === selected ? chalk.inverse(line) : line;
  });
  const more = sessions.length > rows ? [chalk.dim(`${selected + 1}/${sessions.length}`)] : [];
  return [...lines, ...more, chalk.dim('j/k or ↑↓ move · Enter resumes · Esc closes · • this session')];
}
