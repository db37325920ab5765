import { isCtrl, type KeyInput } from './key-input.js';
import { OVERLAY_KEEP_ROWS } from './ui-state.js';

/**
 * The new top line of `count` lines scrolled by j/k, arrows, Ctrl-d/u, PgUp/PgDn, g/G in an
 * overlay on a terminal `rows` high; undefined for other keys, or when they all fit.
 */
export function scrollLines(
  count: number,
  from: number | undefined,
  key: KeyInput,
  rows: number,
): number | undefined {
  const room = messageRoom(rows);
  if (count <= room) return undefined;
  const top = Math.min(from ?? 0, count - room);
  const last = count - room;
  const half = Math.max(1, Math.floor(room / 2));
  const to = (line: number): number => Math.min(last, Math.max(0, line));
  if (key.text === 'j' || key.name === 'down') return to(top + 1);
  if (key.text === 'k' || key.name === 'up') return to(top - 1);
  if (isCtrl(key, 'd') || key.name === 'pagedown') return to(top + half);
  if (isCtrl(key, 'u') || key.name === 'pageup') return to(top - half);
  if (key.text === 'g' && !key.ctrl) return 0;
  if (key.text === 'G') return last;
  return undefined;
}

/** Lines of a message overlay shown at once on a terminal `rows` high (its frame and hint take 3). */
export function messageRoom(rows: number): number {
  return Math.max(3, rows - OVERLAY_KEEP_ROWS - 3);
}
