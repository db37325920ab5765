import { onAgentTreeKey } from './agent-tree.js';
import type { KeyInput } from './key-input.js';
import { onLeaderKey } from './leader-keys.js';
import { executorPanelLines } from './render/executor-panel-lines.js';
import { runCommand } from './run-ui-command.js';
import { scrollLines } from './scroll-lines.js';
import type { Overlay, UiState } from './ui-state.js';
import { flash, type UiStep } from './ui-step.js';

/** Keys while an overlay is up: its own keys, or (most overlays) any other key closes it. */
export function onOverlayKey(state: UiState, overlay: Overlay, key: KeyInput): UiStep {
  if (overlay.type === 'sessions') return onPickerKey(state, overlay, key);
  if (overlay.type === 'agent_tree') return onAgentTreeKey(state, overlay.selected, key);
  if (overlay.type === 'executors') return onExecutorPanelKey(state, overlay, key);
  if (overlay.type === 'which_key' && key.text === ' ' && state.mode === 'normal') {
    // Space with the overlay up starts a chord as usual; the overlay stays until toggled off.
    return { state: { ...state, leader: { startedAt: state.now } }, effects: [] };
  }
  if (overlay.type === 'which_key' && state.leader) return onLeaderKey(state, key);
  if (overlay.type === 'message') {
    const top = scrollMessage(overlay, key, state.size.rows);
    if (top !== undefined) return { state: { ...state, overlay: { ...overlay, top } }, effects: [] };
  }
  const { overlay: _closed, ...rest } = state;
  return { state: rest, effects: [] };
}

/**
 * The executor panel stays open while it updates, until Esc or q: j/k and the other scroll keys
 * move it, other keys are ignored (a key meant for the prompt does not close what is watched).
 */
function onExecutorPanelKey(
  state: UiState,
  overlay: Extract<Overlay, { type: 'executors' }>,
  key: KeyInput,
): UiStep {
  if (key.name === 'escape' || key.text === 'q') {
    const { overlay: _closed, ...rest } = state;
    return { state: rest, effects: [] };
  }
  const lines = executorPanelLines(state.executors, state.now, state.size.columns - 4).length;
  const top = scrollLines(lines, overlay.top, key, state.size.rows);
  return { state: top === undefined ? state : { ...state, overlay: { ...overlay, top } }, effects: [] };
}

/** A long message overlay scrolls with j/k, arrows, Ctrl-d/u, PgUp/PgDn, g/G; undefined for other keys. */
function scrollMessage(
  overlay: Extract<Overlay, { type: 'message' }>,
  key: KeyInput,
  rows: number,
): number | undefined {
  return scrollLines(overlay.lines.length, overlay.top, key, rows);
}

/** The `:sessions` picker: j/k or arrows move, Enter resumes the selected session, Esc closes. */
function onPickerKey(state: UiState, overlay: Extract<Overlay, { type: 'sessions' }>, key: KeyInput): UiStep {
  const count = overlay.sessions.length;
  const select = (selected: number): UiStep => ({
    state: { ...state, overlay: { ...overlay, selected } },
    effects: [],
  });
  const { overlay: _closed, ...closed } = state;
  if (key.name === 'escape' || key.text === 'q') return { state: closed, effects: [] };
  if (count === 0) return { state: closed, effects: [] };
  if (key.text === 'j' || key.name === 'down') return select(Math.min(count - 1, overlay.selected + 1));
  if (key.text === 'k' || key.name === 'up') return select(Math.max(0, overlay.selected - 1));
  if (key.text === 'g') return select(0);
  if (key.text === 'G') return select(count - 1);
  if (key.name === 'return') {
    const chosen = overlay.sessions[overlay.selected]!;
    if (chosen.current) return { state: flash(closed, 'that is this session'), effects: [] };
    return runCommand(closed, { type: 'backend', command: { type: 'resume', sessionId: chosen.id } });
  }
  return { state, effects: [] };
}
