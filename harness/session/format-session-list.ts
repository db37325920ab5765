import { formatCost, formatTokenTriple, relativeTime, uniquePrefixLength } from './format-units.js';
import type { SessionSummary } from './session-summary.js';
import { truncate } from './session-summary.js';

/**
 * The table `skate sessions list` prints: top-level sessions newest first,
 * each followed by its sub-agent sessions. Tokens and cost of a row include
 * its sub-agents.
 */
export function formatSessionList(sessions: readonly SessionSummary[], now: Date): string {
  const idLength = uniquePrefixLength(sessions.map((session) => session.id));
  const ids = new Set(sessions.map((session) => session.id));
  const childrenOf = new Map<string, SessionSummary[]>();
  for (const session of sessions) {
    if (!session.parentSessionId || !ids.has(session.parentSessionId)) continue;
    childrenOf.set(session.parentSessionId, [...(childrenOf.get(session.parentSessionId) ?? []), session]);
  }
  const rows: string[][] = [['ID', 'WHEN', 'TURNS', 'TOKENS in/out/cache', 'EST. COST', 'TITLE']];
  const addRow = (session: SessionSummary, depth: number, seen: Set<string>): void => {
    if (seen.has(session.id)) return;
    seen.add(session.id);
    const indent = depth > 0 ? `${'  '.repeat(depth - 1)}└ ` : '';
    const note = session.forkedFrom
      ? `(fork of ${session.forkedFrom.sessionId.slice(0, idLength)}) `
      : depth > 0
        ? '(sub-agent) '
        : '';
    rows.push([
      indent + session.id.slice(0, idLength),
      relativeTime(session.lastActivity, now),
      String(session.turns),
      formatTokenTriple(session.total.usage),
      formatCost(session.total),
      truncate(note + session.title, 72),
    ]);
    for (const child of childrenOf.get(session.id) ?? []) addRow(child, depth + 1, seen);
  };
  const seen = new Set<string>();
  // Sub-agent sessions whose parent is gone are listed at the top level rather than hidden.
  for (const session of sessions)
    if (!session.parentSessionId || !ids.has(session.parentSessionId)) addRow(session, 0, seen);
  return formatTable(rows);
}

/** Left-aligned columns two spaces apart, except the numeric ones, which are right-aligned. */
function formatTable(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => [...row[column]!].length)));
  const rightAligned = new Set([2, 3, 4]);
  return rows
    .map((row) =>
      row
        .map((cell, column) => {
          if (column === row.length - 1) return cell;
          const pad = ' '.repeat(widths[column]! - [...cell].length);
          return rightAligned.has(column) ? pad + cell : cell + pad;
        })
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}
