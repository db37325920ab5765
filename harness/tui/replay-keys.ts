import type { KeyInput } from './key-input.js';
import { onNormalKey } from './normal-keys.js';
import { closeReplay, shownState, withShownView } from './replay-view.js';
import type { UiState } from './ui-state.js';
import { flash, type UiStep } from './ui-step.js';
import type { ViewMetrics } from './view-metrics.js';

/**
 * A replay is read-only: the movement keys of NORMAL work on its own view,
 * Esc goes back to the live conversation, and nothing types or runs.
 */
export function onReplayKey(state: UiState, key: KeyInput, metrics: ViewMetrics): UiStep {
  if (key.name === 'escape') return { state: closeReplay(state), effects: [] };
  if (key.name === undefined && !key.ctrl && !key.meta && ['i', 'a', ':', ' '].includes(key.text)) {
    return {
      state: flash(state, 'read-only: Esc goes back'),
      effects: [],
    };
  }
  // Movement keys give no effects; the replay's view takes what they did.
  return { state: withShownView(state, onNormalKey(shownState(state), key, metrics).state), effects: [] };
}
