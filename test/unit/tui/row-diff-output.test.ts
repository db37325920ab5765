import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createRowDiffOutput } from '../../../harness/tui/row-diff-output.js';

const CLEAR = '\x1b[2J\x1b[3J\x1b[H';
/** A whole frame as the output writes it: the screen cleared, the scrollback kept (no CSI 3 J). */
const WHOLE = '\x1b[2J\x1b[H';

/** A terminal that keeps each write. */
function fakeTerminal(columns = 20, rows = 3): NodeJS.WriteStream & { writes: string[] } {
  const terminal = Object.assign(new EventEmitter(), {
    columns,
    rows,
    isTTY: true,
    writes: [] as string[],
    write(chunk: string): boolean {
      terminal.writes.push(chunk);
      return true;
    },
  });
  return terminal as unknown as NodeJS.WriteStream & { writes: string[] };
}

describe('row-diffing output (#24: flicker)', () => {
  it('writes the first frame whole (the scrollback kept), then only the rows that changed, at their rows', () => {
    const terminal = fakeTerminal();
    const { stdout } = createRowDiffOutput(terminal);
    stdout.write(`${CLEAR}one\ntwo\nstatus`);
    expect(terminal.writes).toEqual([`${WHOLE}one\ntwo\nstatus`]);
    stdout.write('\x1b[?2026h');
    stdout.write(`${CLEAR}one\nTWO\nstatus`);
    stdout.write('\x1b[?2026l');
    expect(terminal.writes.slice(1)).toEqual(['\x1b[?2026h', '\x1b[2;1H\x1b[2KTWO\x1b[3;7H', '\x1b[?2026l']);
    // Nothing changed: nothing written.
    stdout.write(`${CLEAR}one\nTWO\nstatus`);
    expect(terminal.writes.at(-1)).toBe('');
    expect(terminal.writes.join('').split('\x1b[2J')).toHaveLength(2);
    expect(terminal.writes.join('')).not.toContain('\x1b[3J');
  });

  it('erases rows a shorter frame no longer draws', () => {
    const terminal = fakeTerminal();
    const { stdout } = createRowDiffOutput(terminal);
    stdout.write(`${CLEAR}a\nb\nc`);
    stdout.write(`${CLEAR}a\nb`);
    expect(terminal.writes.at(-1)).toBe('\x1b[3;1H\x1b[2K\x1b[2;2H');
  });

  it('writes the next frame whole after anything else reached the terminal, after a resize, or when told', () => {
    const terminal = fakeTerminal();
    const output = createRowDiffOutput(terminal);
    output.stdout.write(`${CLEAR}a\nb`);
    // Ink's erase before console output, or on a narrower terminal.
    output.stdout.write('\x1b[2K\x1b[1A\x1b[2K\x1b[G');
    output.stdout.write(`${CLEAR}a\nc`);
    expect(terminal.writes.at(-1)).toBe(`${WHOLE}a\nc`);
    terminal.columns = 30;
    output.stdout.write(`${CLEAR}a\nd`);
    expect(terminal.writes.at(-1)).toBe(`${WHOLE}a\nd`);
    output.invalidate();
    output.stdout.write(`${CLEAR}a\ne`);
    expect(terminal.writes.at(-1)).toBe(`${WHOLE}a\ne`);
    output.stdout.write(`${CLEAR}a\nf`);
    expect(terminal.writes.at(-1)).toBe('\x1b[2;1H\x1b[2Kf\x1b[2;2H');
  });

  it('is the terminal for everything else Ink asks of it (size, events, isTTY)', () => {
    const terminal = fakeTerminal(80, 24);
    const { stdout } = createRowDiffOutput(terminal);
    expect([stdout.columns, stdout.rows, stdout.isTTY]).toEqual([80, 24, true]);
    let resized = 0;
    stdout.on('resize', () => resized++);
    terminal.emit('resize');
    expect(resized).toBe(1);
  });

  it('puts the cursor after the last row, within the terminal, as a whole write would', () => {
    const terminal = fakeTerminal(6, 2);
    const { stdout } = createRowDiffOutput(terminal);
    stdout.write(`${CLEAR}ab\n\x1b[7mstatus\x1b[27m`);
    stdout.write(`${CLEAR}ac\n\x1b[7mstatus\x1b[27m`);
    expect(terminal.writes.at(-1)).toBe('\x1b[1;1H\x1b[2Kac\x1b[2;6H');
  });
});
