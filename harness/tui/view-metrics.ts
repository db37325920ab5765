import type { Block, UiState } from './ui-state.js';

/** How tall a block is on screen. */
export interface BlockHeights {
  /** Rows a block takes at this width in this expansion state. */
  blockHeight(block: Block, expanded: boolean, columns: number): number;
  /**
   * Changes whenever a height already given for a block may have changed (an
   * estimate replaced by the drawn height). Heights that never change leave it out.
   */
  heightsVersion?(): number;
}

/**
 * How tall things are on screen. The reducer needs heights to scroll and to
 * bring a focused block into view; the renderer supplies them (from its
 * per-block line cache), tests supply simple ones.
 */
export interface ViewMetrics extends BlockHeights {
  /** Rows left for the conversation once the status bar, prompt and questions are drawn. */
  conversationRows(state: UiState): number;
}

export interface BlockSpan {
  top: number;
  height: number;
}

export interface BlockLayout {
  spans: readonly BlockSpan[];
  total: number;
}

interface LayoutMemo {
  blocks: readonly Block[];
  expanded: ReadonlySet<string>;
  columns: number;
  version: number;
  layout: BlockLayout;
}

/** The last layout per height function: the reducer and the renderer share one when they share the cache. */
const memos = new WeakMap<BlockHeights['blockHeight'], LayoutMemo>();

/**
 * Each block's first row and height in the whole conversation, and the total.
 * Blocks are immutable and change almost only at the end (a streaming reply, a
 * call's result), so the previous layout is kept and only the spans from the
 * first changed block on are measured again: a key press over thousands of
 * blocks costs a pointer comparison per block, not a height each.
 */
export function layoutBlocks(state: UiState, metrics: BlockHeights): BlockLayout {
  const { blocks, expanded } = state;
  const { columns } = state.size;
  const version = metrics.heightsVersion?.() ?? 0;
  const memo = memos.get(metrics.blockHeight);
  let same = 0;
  if (memo && memo.expanded === expanded && memo.columns === columns && memo.version === version) {
    if (memo.blocks === blocks) return memo.layout;
    const limit = Math.min(memo.blocks.length, blocks.length);
    while (same < limit && memo.blocks[same] === blocks[same]) same++;
  }
  const spans: BlockSpan[] = same > 0 ? memo!.layout.spans.slice(0, same) : [];
  let top = same > 0 ? spans[same - 1]!.top + spans[same - 1]!.height : 0;
  for (let i = same; i < blocks.length; i++) {
    const block = blocks[i]!;
    const height = metrics.blockHeight(block, expanded.has(block.id), columns);
    spans.push({ top, height });
    top += height;
  }
  const layout = { spans, total: top };
  memos.set(metrics.blockHeight, { blocks, expanded, columns, version, layout });
  return layout;
}

/** The index of the block that shows row `row` (the last block when past the end); -1 without blocks. */
export function blockAtRow(layout: BlockLayout, row: number): number {
  const { spans } = layout;
  let low = 0;
  let high = spans.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    const span = spans[middle]!;
    if (span.top + span.height > row) high = middle;
    else low = middle + 1;
  }
  return high;
}

/** The first shown row, clamped to the content. */
export function resolveTop(state: UiState, total: number, rows: number): number {
  const max = Math.max(0, total - rows);
  return state.scroll.follow ? max : Math.min(Math.max(0, state.scroll.top), max);
}

/** Scroll to `top`; reaching the bottom turns following back on. */
export function scrollTo(top: number, total: number, rows: number): UiState['scroll'] {
  const max = Math.max(0, total - rows);
  const clamped = Math.min(Math.max(0, top), max);
  return clamped >= max ? { follow: true } : { follow: false, top: clamped };
}
