import type { KeyInput } from './key-input.js';
import { isCtrl } from './key-input.js';
import type { UiState } from './ui-state.js';

type Input = UiState['input'];

/**
 * Line editing of the prompt: insert (typed or pasted text, newlines kept),
 * delete, cursor moves, Ctrl-J / Alt-Enter for a new line, up/down through the
 * history when the prompt is a single line. Returns undefined for a key it does
 * not handle (Enter, Esc), so the caller decides what those do.
 */
export function editPrompt(state: UiState, key: KeyInput): UiState | undefined {
  const { text, cursor } = state.input;
  const set = (input: Input): UiState => {
    const { historyIndex: _dropped, ...rest } = state;
    return { ...rest, input };
  };
  const insert = (chunk: string): UiState =>
    set({ text: text.slice(0, cursor) + chunk + text.slice(cursor), cursor: cursor + chunk.length });
  if (isCtrl(key, 'j') || (key.name === 'return' && key.meta)) return insert('\n');
  if (key.name === 'backspace') {
    if (cursor === 0) return state;
    return set({ text: text.slice(0, cursor - 1) + text.slice(cursor), cursor: cursor - 1 });
  }
  if (key.name === 'delete') return set({ text: text.slice(0, cursor) + text.slice(cursor + 1), cursor });
  if (key.name === 'left') return { ...state, input: { text, cursor: Math.max(0, cursor - 1) } };
  if (key.name === 'right') return { ...state, input: { text, cursor: Math.min(text.length, cursor + 1) } };
  if (key.name === 'home' || isCtrl(key, 'a')) {
    return { ...state, input: { text, cursor: text.lastIndexOf('\n', cursor - 1) + 1 } };
  }
  if (key.name === 'end' || isCtrl(key, 'e')) {
    const end = text.indexOf('\n', cursor);
    return { ...state, input: { text, cursor: end === -1 ? text.length : end } };
  }
  if (isCtrl(key, 'u')) return set({ text: text.slice(cursor), cursor: 0 });
  if (key.name === 'up' || key.name === 'down') return walkHistory(state, key.name === 'up' ? -1 : 1);
  if (key.name !== undefined || key.ctrl || key.meta || key.text === '') return undefined;
  // A paste arrives as one chunk: \r\n and \r from terminals become \n.
  return insert(key.text.replace(/\r\n?/g, '\n'));
}

function walkHistory(state: UiState, step: -1 | 1): UiState {
  const { history } = state;
  if (history.length === 0 || state.input.text.includes('\n')) return state;
  const from = state.historyIndex ?? history.length;
  const index = Math.min(history.length, Math.max(0, from + step));
  const text = history[index] ?? '';
  const { historyIndex: _dropped, ...rest } = state;
  return {
    ...rest,
    ...(index < history.length && { historyIndex: index }),
    input: { text, cursor: text.length },
  };
}
