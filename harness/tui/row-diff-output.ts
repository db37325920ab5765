import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';

/** What Ink 6 writes before every frame as high as the terminal (`ansiEscapes.clearTerminal`). */
const CLEAR_TERMINAL = '\x1b[2J\x1b[3J\x1b[H';
/**
 * A whole frame's clear without Ink's `CSI 3 J`, which erases the terminal's scrollback (tmux
 * clears the pane's history even from the alternate screen): the scrollback is the person's.
 */
const CLEAR_SCREEN = '\x1b[2J\x1b[H';
/** Writes that change nothing on screen: synchronized output's brackets, the cursor shown or hidden. */
const NEUTRAL = new Set(['\x1b[?2026h', '\x1b[?2026l', '\x1b[?25l', '\x1b[?25h', '']);

export interface RowDiffOutput {
  /** The stream to hand Ink in place of the terminal. */
  stdout: NodeJS.WriteStream;
  /** Forget what is on screen (someone else wrote to it): the next frame is written whole. */
  invalidate(): void;
  /** Drop Ink's writes until `release` (the terminal shows something else meanwhile). */
  hold(): void;
  /** Write again; the next frame whole. */
  release(): void;
}

/**
 * A terminal that rewrites only the rows that changed. Ink draws a frame as
 * high as the terminal by clearing the whole screen and writing every row
 * again (#24: the flicker), and its own line-diffing writer, which moves the
 * cursor relatively, left stale rows in tmux. This sits between the two: a
 * frame that starts with Ink's clear is compared row by row with the last one,
 * and each changed row is erased and written at its absolute position, so an
 * error in one row never shifts another; a whole frame keeps the terminal's
 * scrollback, which Ink's clear erases. Anything else written (a resize's
 * erase, console output, the editor stepping aside) makes the next frame whole.
 */
export function createRowDiffOutput(terminal: NodeJS.WriteStream): RowDiffOutput {
  let shown: string[] | undefined;
  let size = '';
  let held = false;
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    if (held) {
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }
    const text =
      typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString() : String(chunk);
    if (!text.startsWith(CLEAR_TERMINAL)) {
      if (!NEUTRAL.has(text)) shown = undefined;
      return (terminal.write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }
    const rows = text.slice(CLEAR_TERMINAL.length).split('\n');
    const now = `${terminal.columns}x${terminal.rows}`;
    const out =
      shown === undefined || now !== size
        ? CLEAR_SCREEN + text.slice(CLEAR_TERMINAL.length)
        : changedRows(shown, rows, terminal.columns || 80);
    shown = rows;
    size = now;
    return (terminal.write as (...args: unknown[]) => boolean)(out, ...rest);
  };
  const stdout = new Proxy(terminal, {
    get(target, property) {
      if (property === 'write') return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    stdout,
    invalidate: () => {
      shown = undefined;
    },
    hold: () => {
      held = true;
    },
    release: () => {
      held = false;
      shown = undefined;
    },
  };
}

/**
 * The escape codes that turn `before` into `after`: each changed row erased and
 * written at its row (erasing first, so a row as wide as the terminal never
 * meets an erase in the pending-wrap state), rows no longer drawn erased, and
 * the cursor left where a whole write would leave it (after the last row).
 */
function changedRows(before: readonly string[], after: readonly string[], columns: number): string {
  let out = '';
  for (let row = 0; row < Math.max(before.length, after.length); row++) {
    if (before[row] === after[row]) continue;
    out += `\x1b[${row + 1};1H\x1b[2K${after[row] ?? ''}`;
  }
  if (out === '') return '';
  const last = after.at(-1) ?? '';
  const column = Math.min(stringWidth(stripVTControlCharacters(last)) + 1, columns);
  return `${out}\x1b[${after.length};${column}H`;
}
