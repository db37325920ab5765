import { answerPending } from './answer-pending.js';
import { onCommandKey } from './command-line-keys.js';
import { onInsertKey } from './insert-keys.js';
import { isCtrl, type KeyInput } from './key-input.js';
import { onLeaderKey } from './leader-keys.js';
import { onNormalKey } from './normal-keys.js';
import { onOverlayKey } from './overlay-keys.js';
import { onReplayKey } from './replay-keys.js';
import { runCommand } from './run-ui-command.js';
import { DOUBLE_CTRL_C_MS, type UiState } from './ui-state.js';
import { flash, type UiStep } from './ui-step.js';
import type { ViewMetrics } from './view-metrics.js';

/** A key goes to the first that takes it: Ctrl-C, a pending question, an overlay, a replay, the leader, the mode. */
export function onKey(state: UiState, key: KeyInput, metrics: ViewMetrics): UiStep {
  if (isCtrl(key, 'c')) return onCtrlC(state);
  // Keys typed faster than the terminal is read arrive as one chunk ("3no", "]]", " n"). Outside
  // the prompt's text (where a chunk is a paste and stays whole) each character is its own key.
  const chunked = key.text.length > 1 && key.name === undefined && !key.ctrl && !key.meta;
  if (chunked && (state.pending.length > 0 || state.overlay || state.leader || state.mode !== 'insert')) {
    let step: UiStep = { state, effects: [] };
    for (const char of key.text) {
      const next = onKey(step.state, { text: char }, metrics);
      step = { state: next.state, effects: [...step.effects, ...next.effects] };
    }
    return step;
  }
  const waiting = state.pending[0];
  if (waiting?.type === 'approval' && waiting.feedback === undefined && key.name === 'escape') {
    // Esc leaves INSERT, as everywhere; rejecting loses the call's work and takes its own key.
    return {
      state: flash({ ...state, mode: 'normal' }, 'approval waits: y or n'),
      effects: [],
    };
  }
  if (waiting) return answerPending(state, key);
  if (state.overlay) return onOverlayKey(state, state.overlay, key);
  if (state.replay) return onReplayKey(state, key, metrics);
  // The leader waits for its key however long the person reads the list: Esc cancels it.
  if (state.leader) return onLeaderKey(state, key);
  switch (state.mode) {
    case 'insert':
      return onInsertKey(state, key);
    case 'command':
      return onCommandKey(state, key);
    case 'normal':
      return onNormalKey(state, key, metrics);
  }
}

/** Interrupts a run; when idle, the second Ctrl-C within a second quits (the first clears the prompt). */
function onCtrlC(state: UiState): UiStep {
  if (state.running) {
    return { state: { ...state, pending: [], interrupting: true }, effects: [{ type: 'interrupt' }] };
  }
  if (state.lastCtrlC !== undefined && state.now - state.lastCtrlC <= DOUBLE_CTRL_C_MS) {
    return runCommand(state, { type: 'quit' });
  }
  const cleared = { ...state, lastCtrlC: state.now, input: { text: '', cursor: 0 } };
  return { state: flash(cleared, 'press Ctrl-C again to quit'), effects: [] };
}
