import type { Block, UiState } from '../ui-state.js';
import type { ViewMetrics } from '../view-metrics.js';
import { renderBlockLines } from './block-lines.js';

/** Columns the viewport keeps for the focus marker. */
export const GUTTER = 2;

/**
 * Rendered lines per block, width and expansion. Blocks are immutable, so a
 * finished block's lines are computed once per width and expansion; a block
 * still streaming or running is a new object on every change (and its
 * spinner moves), so it is rendered fresh and not kept.
 */
export class BlockLineCache {
  private readonly cache = new WeakMap<Block, Map<string, string[]>>();
  /** The clock a running call's elapsed time is drawn with; the shell sets it per frame. */
  now = 0;

  lines(block: Block, expanded: boolean, columns: number): string[] {
    const width = Math.max(10, columns - GUTTER);
    if (isLive(block)) return renderBlockLines(block, { width, expanded, now: this.now });
    const key = `${width}:${expanded ? 1 : 0}`;
    let byKey = this.cache.get(block);
    if (!byKey) {
      byKey = new Map();
      this.cache.set(block, byKey);
    }
    let lines = byKey.get(key);
    if (!lines) {
      lines = renderBlockLines(block, { width, expanded, now: this.now });
      byKey.set(key, lines);
    }
    return lines;
  }

  /** Metrics for the reducer: a block's height is its number of rendered lines. */
  metrics(conversationRows: (state: UiState) => number): ViewMetrics {
    return {
      blockHeight: (block, expanded, columns) => this.lines(block, expanded, columns).length,
      conversationRows,
    };
  }
}

function isLive(block: Block): boolean {
  if (block.kind === 'assistant' || block.kind === 'thinking') return block.streaming;
  return block.kind === 'tool' && block.status === 'running';
}
