import chalk from 'chalk';
import type { UiState } from '../ui-state.js';
import { blockAtRow, layoutBlocks, resolveTop } from '../view-metrics.js';
import { type BlockLineCache, GUTTER } from './line-cache.js';

/**
 * Exactly `rows` lines of the conversation as the scroll position shows them:
 * only the blocks in view are rendered (from the cache when unchanged), and
 * only their shown lines get the gutter. While following, the walk starts at
 * the newest block; otherwise the first block in view is found in the shared
 * layout by binary search, so a long session costs no more per frame than a
 * short one.
 */
export function visibleLines(state: UiState, cache: BlockLineCache, rows: number): string[] {
  const { columns } = state.size;
  const { blocks } = state;
  const focusMark = chalk.cyan('▌ ');
  const noMark = ' '.repeat(GUTTER);
  /** Lines `from`..`to` of a block, with the focus gutter. */
  const linesOf = (index: number, from: number, to?: number): string[] => {
    const block = blocks[index]!;
    const lines = cache.lines(block, state.expanded.has(block.id), columns);
    const mark = block.id === state.focus ? focusMark : noMark;
    return lines.slice(from, to).map((line) => mark + line);
  };
  const shown: string[] = [];
  if (state.scroll.follow) {
    const parts: string[][] = [];
    let count = 0;
    for (let i = blocks.length - 1; i >= 0 && count < rows; i--) {
      const height = cache.lines(blocks[i]!, state.expanded.has(blocks[i]!.id), columns).length;
      const part = linesOf(i, Math.max(0, height - (rows - count)));
      parts.push(part);
      count += part.length;
    }
    for (let i = parts.length - 1; i >= 0; i--) shown.push(...parts[i]!);
  } else {
    const layout = layoutBlocks(state, cache);
    const top = resolveTop(state, layout.total, rows);
    let index = blockAtRow(layout, top);
    // The first block may have been measured by an estimate: its real lines are shown from the same offset.
    let from = index >= 0 ? Math.max(0, top - layout.spans[index]!.top) : 0;
    for (; index >= 0 && index < blocks.length && shown.length < rows; index++) {
      shown.push(...linesOf(index, from, from + rows - shown.length));
      from = 0;
    }
  }
  while (shown.length < rows) shown.push('');
  return shown;
}
