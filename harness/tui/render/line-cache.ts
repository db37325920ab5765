import type { Block, UiState } from '../ui-state.js';
import type { ViewMetrics } from '../view-metrics.js';
import { renderBlockLines } from './block-lines.js';

/** Columns the viewport keeps for the focus marker. */
export const GUTTER = 2;

/**
 * Rendered lines per block, width and expansion. Blocks are immutable (a
 * streaming block is a new object on every change), so lines are cached by
 * the block's identity; a running call's spinner and elapsed time move with
 * the clock, so its key includes the clock's tenth of a second.
 */
export class BlockLineCache {
  private readonly cache = new WeakMap<Block, Map<string, string[]>>();
  /** The clock a running call's elapsed time is drawn with; the shell sets it per frame. */
  now = 0;

  lines(block: Block, expanded: boolean, columns: number): string[] {
    const key = this.key(block, expanded, columns);
    let byKey = this.cache.get(block);
    if (!byKey) {
      byKey = new Map();
      this.cache.set(block, byKey);
    }
    let lines = byKey.get(key);
    if (!lines) {
      lines = renderBlockLines(block, { width: textWidth(columns), expanded, now: this.now });
      if (block.kind === 'tool' && block.status === 'running') byKey.clear(); // only the latest tick is kept
      byKey.set(key, lines);
    }
    return lines;
  }

  /**
   * A block's height: exact once it has been drawn at this width; before that,
   * Markdown text is estimated from its length, so scrolling a long session
   * does not render every reply in it. The estimate is replaced by the real
   * height when the block comes into view.
   */
  height(block: Block, expanded: boolean, columns: number): number {
    const drawn = this.cache.get(block)?.get(this.key(block, expanded, columns));
    if (drawn) return drawn.length;
    if (block.kind !== 'assistant') return this.lines(block, expanded, columns).length;
    const width = textWidth(columns);
    let rows = 1; // the blank line after a reply
    for (const line of block.text.split('\n')) rows += Math.max(1, Math.ceil(line.length / width));
    return rows;
  }

  /** Metrics for the reducer: a block's height is its number of rendered lines. */
  metrics(conversationRows: (state: UiState) => number): ViewMetrics {
    return {
      blockHeight: (block, expanded, columns) => this.height(block, expanded, columns),
      conversationRows,
    };
  }

  private key(block: Block, expanded: boolean, columns: number): string {
    const base = `${textWidth(columns)}:${expanded ? 1 : 0}`;
    return block.kind === 'tool' && block.status === 'running'
      ? `${base}:${Math.floor(this.now / 100)}`
      : base;
  }
}

function textWidth(columns: number): number {
  return Math.max(10, columns - GUTTER);
}
