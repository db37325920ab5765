import { editPrompt } from './edit-prompt.js';
import type { KeyInput } from './key-input.js';
import { completeSlash } from './slash-completion.js';
import { submitPrompt } from './submit-prompt.js';
import type { UiState } from './ui-state.js';
import type { UiStep } from './ui-step.js';

/** INSERT: keys edit the prompt, Enter sends it, Tab completes a slash command, Esc leaves. */
export function onInsertKey(state: UiState, key: KeyInput): UiStep {
  if (key.name === 'escape') return { state: { ...state, mode: 'normal' }, effects: [] };
  if (key.name === 'return' && !key.meta) return submitPrompt(state);
  if (key.name === 'tab') return { state: completeSlash(state) ?? state, effects: [] };
  return { state: editPrompt(state, key) ?? state, effects: [] };
}
