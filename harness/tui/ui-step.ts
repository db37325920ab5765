import { inertText } from '../terminal/inert-text.js';
import { type Effect, FLASH_MS, type UiState } from './ui-state.js';

/** What one input did: the UI's next state and what the shell must do for it. */
export interface UiStep {
  state: UiState;
  effects: Effect[];
}

/** Shows `text` briefly in the status line. */
export function flash(state: UiState, text: string): UiState {
  // Messages quote what failed (an error's message, a command's argument): shown, never obeyed.
  return { ...state, flash: { text: inertText(text), until: state.now + FLASH_MS } };
}
