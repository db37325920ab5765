import { isCtrl, type KeyInput } from './key-input.js';
import { type UiState, WHICH_KEY_DELAY_MS } from './ui-state.js';
import type { UiStep } from './ui-step.js';
import { layoutBlocks, resolveTop, scrollTo, type ViewMetrics } from './view-metrics.js';

/** NORMAL: scrolling, block focus and folding, and the keys into the other modes and the leader. */
export function onNormalKey(state: UiState, key: KeyInput, metrics: ViewMetrics): UiStep {
  const same = { state, effects: [] };
  if (key.name === 'escape') {
    const { focus: _unfocused, ...rest } = state;
    return { state: rest, effects: [] };
  }
  if (key.name === 'return' || key.name === 'tab') return { state: toggleFocused(state), effects: [] };
  if (
    key.name !== undefined &&
    key.name !== 'up' &&
    key.name !== 'down' &&
    key.name !== 'pageup' &&
    key.name !== 'pagedown'
  ) {
    return same;
  }
  const rows = metrics.conversationRows(state);
  const scrollBy = (delta: number): UiStep => {
    const { total } = layoutBlocks(state, metrics);
    const top = resolveTop(state, total, rows);
    return { state: { ...state, scroll: scrollTo(top + delta, total, rows) }, effects: [] };
  };
  const half = Math.max(1, Math.floor(rows / 2));
  if (isCtrl(key, 'd')) return scrollBy(half);
  if (isCtrl(key, 'u')) return scrollBy(-half);
  if (key.ctrl || key.meta) return same;
  if (key.text === 'j' || key.name === 'down') return scrollBy(1);
  if (key.text === 'k' || key.name === 'up') return scrollBy(-1);
  if (key.name === 'pagedown') return scrollBy(rows);
  if (key.name === 'pageup') return scrollBy(-rows);
  switch (key.text) {
    case 'g':
      return { state: { ...state, scroll: { follow: false, top: 0 } }, effects: [] };
    case 'G':
      return { state: { ...state, scroll: { follow: true } }, effects: [] };
    case ']':
      return { state: moveFocus(state, 1, metrics), effects: [] };
    case '[':
      return { state: moveFocus(state, -1, metrics), effects: [] };
    case 'i':
    case 'a':
      return { state: { ...state, mode: 'insert' }, effects: [] };
    case ':':
      return { state: { ...state, mode: 'command', commandLine: '' }, effects: [] };
    case ' ':
      return {
        state: { ...state, leader: { startedAt: state.now } },
        effects: [{ type: 'wake', at: state.now + WHICH_KEY_DELAY_MS }],
      };
    default:
      return same;
  }
}

function toggleFocused(state: UiState): UiState {
  if (state.focus === undefined) return state;
  const expanded = new Set(state.expanded);
  if (expanded.has(state.focus)) expanded.delete(state.focus);
  else expanded.add(state.focus);
  return { ...state, expanded };
}

/** Moves focus to the next/previous block (from none: the last/first one) and scrolls it into view. */
function moveFocus(state: UiState, step: 1 | -1, metrics: ViewMetrics): UiState {
  const { blocks } = state;
  if (blocks.length === 0) return state;
  const current = state.focus === undefined ? -1 : blocks.findIndex((block) => block.id === state.focus);
  const index =
    current === -1
      ? step === 1
        ? 0
        : blocks.length - 1
      : Math.min(blocks.length - 1, Math.max(0, current + step));
  const focused: UiState = { ...state, focus: blocks[index]!.id };
  const rows = metrics.conversationRows(focused);
  const { spans, total } = layoutBlocks(focused, metrics);
  const span = spans[index]!;
  const top = resolveTop(focused, total, rows);
  if (span.top < top) return { ...focused, scroll: scrollTo(span.top, total, rows) };
  const bottom = span.top + Math.min(span.height, rows);
  if (bottom > top + rows) return { ...focused, scroll: scrollTo(bottom - rows, total, rows) };
  return focused;
}
