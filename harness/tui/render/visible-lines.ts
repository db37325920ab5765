import chalk from 'chalk';
import type { UiState } from '../ui-state.js';
import { resolveTop } from '../view-metrics.js';
import { type BlockLineCache, GUTTER } from './line-cache.js';

/**
 * Exactly `rows` lines of the conversation as the scroll position shows them:
 * only the blocks in view are rendered (from the cache when finished). While
 * following, the walk starts at the newest block and stops when the screen is
 * full, so a long session costs no more per frame than a short one.
 */
export function visibleLines(state: UiState, cache: BlockLineCache, rows: number): string[] {
  const { columns } = state.size;
  const { blocks } = state;
  const linesOf = (index: number): string[] => {
    const block = blocks[index]!;
    const lines = cache.lines(block, state.expanded.has(block.id), columns);
    const focused = block.id === state.focus;
    return lines.map((line) => (focused ? chalk.cyan('▌ ') : ' '.repeat(GUTTER)) + line);
  };
  let shown: string[] = [];
  if (state.scroll.follow) {
    for (let i = blocks.length - 1; i >= 0 && shown.length < rows; i--) shown = [...linesOf(i), ...shown];
    shown = shown.slice(Math.max(0, shown.length - rows));
  } else {
    let total = 0;
    const heights = blocks.map((block) => {
      const height = cache.height(block, state.expanded.has(block.id), columns);
      total += height;
      return height;
    });
    const top = resolveTop(state, total, rows);
    let row = 0;
    for (let i = 0; i < blocks.length && row < top + rows; i++) {
      const height = heights[i]!;
      if (row + height > top) {
        // Drawn now: an estimated height becomes the real one (the rows below shift by the difference).
        const lines = linesOf(i);
        shown.push(...lines.slice(Math.max(0, top - row), top + rows - row));
      }
      row += height;
    }
  }
  shown = shown.slice(0, rows);
  while (shown.length < rows) shown.push('');
  return shown;
}
