import { describe, expect, it } from 'vitest';
import { applyEngineEvents, type UiEvent } from '../../../harness/tui/apply-engine-events.js';
import { BlockLineCache, GUTTER } from '../../../harness/tui/render/line-cache.js';
import { markdownLines } from '../../../harness/tui/render/markdown-lines.js';
import { visibleLines } from '../../../harness/tui/render/visible-lines.js';
import { type Block, initialUiState, type UiState } from '../../../harness/tui/ui-state.js';
import { blockAtRow, layoutBlocks } from '../../../harness/tui/view-metrics.js';
import { markdownReply } from '../../support/markdown-reply.js';

const COLUMNS = 60;

/** A session of replies (some long) and calls, as a replayed one would arrive. */
function session(replies: number): UiState {
  const events: UiEvent[] = [{ type: 'user_prompt', agent: [], text: 'start' }];
  for (let i = 0; i < replies; i++) {
    events.push({ type: 'text_done', agent: [], text: i % 5 === 0 ? markdownReply(40) : `Reply ${i}.` });
    events.push({
      type: 'tool_call_start',
      agent: [],
      id: `c${i}`,
      name: 'read_file',
      args: { path: `f${i}` },
    });
    events.push({
      type: 'tool_call_result',
      agent: [],
      id: `c${i}`,
      name: 'read_file',
      output: `1\tline ${i}`,
      isError: false,
      durationMs: 1,
    });
  }
  const state = initialUiState({ now: 0, columns: COLUMNS, rows: 20, model: 'm' });
  return applyEngineEvents(state, events, 0);
}

/** Every block's lines one after the other, with the gutter: what scrolling through the session shows. */
function allLines(state: UiState, cache: BlockLineCache): string[] {
  return state.blocks.flatMap((block) =>
    cache.lines(block, state.expanded.has(block.id), COLUMNS).map((line) => ' '.repeat(GUTTER) + line),
  );
}

describe('layout and viewport', () => {
  it('keeps the layout when only the last block changes, equal to one measured from scratch', () => {
    const heights = (block: Block, expanded: boolean): number => (expanded ? 5 : block.id.length % 3) + 1;
    const metrics = { blockHeight: heights };
    let state = session(30);
    const first = layoutBlocks(state, metrics);
    expect(layoutBlocks(state, metrics)).toBe(first); // nothing changed: the same layout
    state = applyEngineEvents(state, [{ type: 'text_delta', agent: [], text: 'streaming…' }], 0);
    state = { ...state, expanded: new Set([state.blocks[3]!.id]) };
    const kept = layoutBlocks(state, metrics);
    const fresh = layoutBlocks(state, { blockHeight: (block, expanded) => heights(block, expanded) });
    expect(kept).toEqual(fresh);
    expect(kept.total).toBe(fresh.spans.reduce((sum, span) => sum + span.height, 0));
  });

  it('measures again when a height given before changes (an estimate replaced by the drawn height)', () => {
    const cache = new BlockLineCache();
    const state = session(10);
    const estimated = layoutBlocks(state, cache);
    for (const block of state.blocks) cache.lines(block, false, COLUMNS);
    const drawn = layoutBlocks(state, cache);
    expect(drawn).not.toBe(estimated);
    expect(drawn.total).toBe(allLines(state, cache).length);
  });

  it('finds the block that shows a row by binary search', () => {
    const layout = layoutBlocks(session(12), { blockHeight: (block) => (block.id.length % 4) + 1 });
    for (let row = 0; row < layout.total + 3; row++) {
      const index = blockAtRow(layout, row);
      const expected = layout.spans.findIndex((span) => span.top + span.height > row);
      expect(index).toBe(expected === -1 ? layout.spans.length - 1 : expected);
    }
    expect(blockAtRow({ spans: [], total: 0 }, 0)).toBe(-1);
  });

  it('shows the rows at every scroll position exactly as the whole session laid end to end', () => {
    const cache = new BlockLineCache();
    const state = session(15);
    const all = allLines(state, cache); // every block drawn: heights are exact
    const rows = 20;
    for (let top = 0; top <= all.length - rows; top += 7) {
      const shown = visibleLines({ ...state, scroll: { follow: false, top } }, cache, rows);
      expect(shown).toEqual(all.slice(top, top + rows));
    }
    expect(visibleLines(state, cache, rows)).toEqual(all.slice(-rows)); // following: the end
  });

  it('keeps the lines of the most recently drawn blocks only, and draws the others again the same', () => {
    const cache = new BlockLineCache(4);
    const state = session(6);
    const blocks = state.blocks.slice(0, 6);
    const first = blocks.map((block) => cache.lines(block, false, COLUMNS));
    expect(cache.lines(blocks[5]!, false, COLUMNS)).toBe(first[5]); // recent: kept
    const again = cache.lines(blocks[0]!, false, COLUMNS);
    expect(again).not.toBe(first[0]); // evicted: drawn again
    expect(again).toEqual(first[0]);
  });

  it('draws a streaming reply incrementally with the same lines as a whole render, and at a new width', () => {
    const cache = new BlockLineCache();
    const reply = markdownReply(120);
    let state = initialUiState({ now: 0, columns: COLUMNS, rows: 20, model: 'm' });
    for (let at = 0; at < reply.length; at += 37) {
      state = applyEngineEvents(
        state,
        [{ type: 'text_delta', agent: [], text: reply.slice(at, at + 37) }],
        0,
      );
      const block = state.blocks.at(-1)!;
      const width = at > reply.length / 2 ? COLUMNS + 17 : COLUMNS;
      const text = block.kind === 'assistant' ? block.text : '';
      expect(cache.lines(block, false, width)).toEqual([...markdownLines(text, width - GUTTER), '']);
    }
  });
});
