import { inertText } from '../terminal/inert-text.js';
import { runCommand } from './run-ui-command.js';
import { slashCommand } from './ui-command.js';
import type { UiState } from './ui-state.js';
import { flash, type UiStep } from './ui-step.js';

/** Sends the prompt's text: a slash command runs, anything else starts a turn (unless one is running). */
export function submitPrompt(state: UiState): UiStep {
  const text = state.input.text;
  if (text.trim() === '') return { state, effects: [] };
  const { historyIndex: _walked, ...rest } = state;
  const history = rest.history.at(-1) === text ? rest.history : [...rest.history, text];
  const cleared: UiState = { ...rest, history, input: { text: '', cursor: 0 } };
  const slash = slashCommand(text);
  if (slash)
    return slash.ok ? runCommand(cleared, slash.command) : { state: flash(state, slash.error), effects: [] };
  if (state.running)
    return { state: flash(state, 'a turn is running: wait, or Ctrl-C to interrupt it'), effects: [] };
  // The model gets the prompt as typed (a paste included); the screen shows it inert.
  const user = { kind: 'user' as const, id: `user-${state.nextId}`, text: inertText(text) };
  return {
    state: {
      ...cleared,
      nextId: state.nextId + 1,
      blocks: [...state.blocks, user],
      running: true,
      scroll: { follow: true },
    },
    effects: [{ type: 'prompt', text }],
  };
}
