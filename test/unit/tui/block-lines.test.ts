import { stripVTControlCharacters as stripAnsi } from 'node:util';
import chalk from 'chalk';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { cutLine, renderBlockLines } from '../../../harness/tui/render/block-lines.js';
import type { ToolBlock } from '../../../harness/tui/ui-state.js';

function shellBlock(command: string): ToolBlock {
  return {
    kind: 'tool',
    id: 'b1',
    callId: 'c1',
    name: 'shell',
    args: { command },
    startedAt: 0,
    status: 'done',
    streamed: [],
    streamedCount: 0,
    result: { output: 'ok\n', isError: false, durationMs: 3 },
  };
}

describe('cutLine', () => {
  it('leaves a line that fits alone and cuts a longer one to the width with an ellipsis', () => {
    expect(cutLine('short', 10)).toBe('short');
    expect(cutLine('exactly10!', 10)).toBe('exactly10!');
    expect(stripAnsi(cutLine('one two three four', 10))).toBe('one two t…');
    const painted = cutLine(chalk.bold('a'.repeat(30)), 12);
    expect(stripAnsi(painted)).toBe(`${'a'.repeat(11)}…`);
    expect(stringWidth(painted)).toBe(12);
  });
});

describe('a collapsed tool line', () => {
  it('is one line no wider than the panel, ending in … when the call does not fit', () => {
    const command = `echo ${'word '.repeat(40)}`;
    const [line, ...rest] = renderBlockLines(shellBlock(command), { width: 60, expanded: false, now: 0 });
    expect(rest).toEqual([]);
    expect(stringWidth(line!)).toBe(60);
    expect(stripAnsi(line!).endsWith('…')).toBe(true);
    const [fits] = renderBlockLines(shellBlock('ls'), { width: 60, expanded: false, now: 0 });
    expect(stripAnsi(fits!)).not.toContain('…');
  });
});
