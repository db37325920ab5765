import type { Block, UiState } from '../ui-state.js';
import type { BlockHeights, ViewMetrics } from '../view-metrics.js';
import { renderBlockLines } from './block-lines.js';
import { markdownLines } from './markdown-lines.js';
import { StreamingMarkdown } from './streaming-markdown.js';

/** Columns the viewport keeps for the focus marker. */
export const GUTTER = 2;

/** Blocks whose rendered lines are kept: far more than a screen shows, far fewer than a long session holds. */
export const LINE_CACHE_BLOCKS = 600;
/** Streaming replies rendered incrementally at once (one streams at a time; a few for safety). */
const STREAMING_RENDERERS = 4;

interface CachedLines {
  block: Block;
  key: string;
  lines: string[];
}

interface CachedHeight {
  key: string;
  rows: number;
  /** False while the height is an estimate from the text's length (a reply not drawn yet). */
  exact: boolean;
}

/**
 * Rendered lines and heights of blocks, per width and expansion. Blocks are
 * immutable (a streaming block is a new object on every change), so entries
 * are checked against the block's identity.
 *
 * Lines are kept for the most recently drawn blocks only (an LRU by block id,
 * so the superseded versions of a streaming block are not kept): scrolling back
 * re-renders, a long session does not hold every block's lines. Heights are
 * kept per block (a number each) so that laying out thousands of blocks
 * renders none of them. A streaming reply is rendered incrementally: only its
 * unsettled end is parsed again when it grows.
 */
export class BlockLineCache implements BlockHeights {
  private readonly recent = new Map<string, CachedLines>();
  private readonly heights = new WeakMap<Block, CachedHeight>();
  private readonly streaming = new Map<string, StreamingMarkdown>();
  private readonly keys = new Map<number, string>();
  private version = 0;
  /** The clock a running call's elapsed time is drawn with; set per frame by `beginFrame`. */
  now = 0;

  constructor(private readonly capacity = LINE_CACHE_BLOCKS) {}

  /** Called by the screen before it draws `state`. */
  beginFrame(state: UiState): void {
    this.now = state.now;
  }

  lines(block: Block, expanded: boolean, columns: number): string[] {
    const key = this.key(block, expanded, columns);
    const cached = this.recent.get(block.id);
    if (cached && cached.block === block && cached.key === key) {
      // Most recently used last: the Map's order is the LRU order.
      this.recent.delete(block.id);
      this.recent.set(block.id, cached);
      return cached.lines;
    }
    const lines = renderBlockLines(block, {
      width: textWidth(columns),
      expanded,
      now: this.now,
      ...(block.kind === 'assistant' && { markdown: this.markdownFor(block) }),
    });
    this.recent.delete(block.id);
    this.recent.set(block.id, { block, key, lines });
    if (this.recent.size > this.capacity) this.recent.delete(this.recent.keys().next().value!);
    const known = this.heights.get(block);
    if (known && known.key === key && !known.exact && known.rows !== lines.length) this.version++;
    this.heights.set(block, { key, rows: lines.length, exact: true });
    return lines;
  }

  /**
   * A block's height. Markdown replies not drawn yet are estimated from their
   * length, so scrolling a long session does not render every reply in it; the
   * estimate is replaced by the real height when the block comes into view
   * (and `heightsVersion` changes). Other blocks are measured exactly, keeping
   * only the number (collapsed calls and thinking keep nothing: one line each).
   */
  readonly blockHeight = (block: Block, expanded: boolean, columns: number): number => {
    // Collapsed calls and thinking are one line: nothing to measure or keep (half the blocks of a long session).
    if (!expanded && (block.kind === 'tool' || block.kind === 'thinking')) return 1;
    const key = this.key(block, expanded, columns);
    const known = this.heights.get(block);
    if (known && known.key === key) return known.rows;
    // The reply being streamed is on screen anyway: measured by drawing it, it never jumps from an estimate.
    if (block.kind === 'assistant' && block.streaming) return this.lines(block, expanded, columns).length;
    if (block.kind !== 'assistant') {
      // Measured without keeping the lines.
      const rows = renderBlockLines(block, { width: textWidth(columns), expanded, now: this.now }).length;
      this.heights.set(block, { key, rows, exact: true });
      return rows;
    }
    const width = textWidth(columns);
    let rows = 1; // the blank line after a reply
    let start = 0;
    const text = block.text;
    if (text === '') rows = 0;
    else
      for (;;) {
        const end = text.indexOf('\n', start);
        const length = (end === -1 ? text.length : end) - start;
        rows += Math.max(1, Math.ceil(length / width));
        if (end === -1) break;
        start = end + 1;
      }
    this.heights.set(block, { key, rows, exact: false });
    return rows;
  };

  /** Changes whenever an estimated height was replaced by a different real one. */
  readonly heightsVersion = (): number => this.version;

  /** Metrics for the reducer: a block's height is its number of rendered lines. */
  metrics(conversationRows: (state: UiState) => number): ViewMetrics {
    return {
      blockHeight: this.blockHeight,
      heightsVersion: this.heightsVersion,
      conversationRows,
    };
  }

  /** The incremental renderer of a streaming reply; a finished reply uses (and then drops) its own. */
  private markdownFor(
    block: Extract<Block, { kind: 'assistant' }>,
  ): (text: string, width: number) => string[] {
    let renderer = this.streaming.get(block.id);
    if (!block.streaming) {
      this.streaming.delete(block.id);
    } else if (!renderer) {
      renderer = new StreamingMarkdown();
      this.streaming.set(block.id, renderer);
      if (this.streaming.size > STREAMING_RENDERERS)
        this.streaming.delete(this.streaming.keys().next().value!);
    }
    if (!renderer) return markdownLines;
    const incremental = renderer;
    return (text, width) => incremental.lines(text, width);
  }

  private key(block: Block, expanded: boolean, columns: number): string {
    // One string per width and expansion, shared by every block's entry.
    const slot = columns * 2 + (expanded ? 1 : 0);
    let base = this.keys.get(slot);
    if (base === undefined) {
      base = `${textWidth(columns)}:${expanded ? 1 : 0}`;
      this.keys.set(slot, base);
    }
    return block.kind === 'tool' && block.status === 'running'
      ? `${base}:${Math.floor(this.now / 100)}`
      : base;
  }
}

function textWidth(columns: number): number {
  return Math.max(10, columns - GUTTER);
}
