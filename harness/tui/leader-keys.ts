import type { KeyInput } from './key-input.js';
import { findChord } from './leader-chords.js';
import { runCommand } from './run-ui-command.js';
import type { UiState } from './ui-state.js';
import { flash, type UiStep } from './ui-step.js';

function withoutLeader(state: UiState): UiState {
  const { leader: _gone, ...rest } = state;
  return rest;
}

/** The key after Space: runs its chord's command, or says it is not bound; Esc cancels. */
export function onLeaderKey(state: UiState, key: KeyInput): UiStep {
  const rest = withoutLeader(state);
  if (key.name === 'escape') return { state: rest, effects: [] };
  const chord = key.name === undefined && !key.ctrl ? findChord(key.text) : undefined;
  if (!chord) {
    const name = key.name ?? (key.ctrl ? `Ctrl-${key.text}` : key.text);
    return { state: flash(rest, `Space ${name} is not bound (Space ? lists the chords)`), effects: [] };
  }
  return runCommand(rest, chord.command);
}
