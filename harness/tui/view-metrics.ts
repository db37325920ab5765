import type { Block, UiState } from './ui-state.js';

/**
 * How tall things are on screen. The reducer needs heights to scroll and to
 * bring a focused block into view; the renderer supplies them (from its
 * per-block line cache), tests supply simple ones.
 */
export interface ViewMetrics {
  /** Rows a block takes at this width in this expansion state. */
  blockHeight(block: Block, expanded: boolean, columns: number): number;
  /** Rows left for the conversation once the status bar, prompt and questions are drawn. */
  conversationRows(state: UiState): number;
}

export interface BlockSpan {
  top: number;
  height: number;
}

/** Each block's first row and height in the whole conversation, and the total. */
export function layoutBlocks(state: UiState, metrics: ViewMetrics): { spans: BlockSpan[]; total: number } {
  const spans: BlockSpan[] = [];
  let top = 0;
  for (const block of state.blocks) {
    const height = metrics.blockHeight(block, state.expanded.has(block.id), state.size.columns);
    spans.push({ top, height });
    top += height;
  }
  return { spans, total: top };
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
