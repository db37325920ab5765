import type { UiCommand } from './ui-command.js';
import type { UiState } from './ui-state.js';
import { flash, type UiStep } from './ui-step.js';

/** `Space m` walks the approval modes in this order. */
const APPROVAL_CYCLE: readonly UiState['approval'][] = ['auto', 'ask', 'deny-writes'];

/** Carries out a command: UI-only ones here, the rest as an effect for the shell. */
export function runCommand(state: UiState, command: UiCommand): UiStep {
  switch (command.type) {
    case 'quit':
      return { state: { ...state, exiting: true }, effects: [{ type: 'command', command }] };
    case 'help':
      return { state: { ...state, overlay: { type: 'help' } }, effects: [] };
    case 'which_key': {
      if (state.overlay?.type === 'which_key') {
        const { overlay: _closed, ...rest } = state;
        return { state: rest, effects: [] };
      }
      return { state: { ...state, overlay: { type: 'which_key' } }, effects: [] };
    }
    case 'agent_tree':
      return { state: { ...state, overlay: { type: 'agent_tree', selected: 0 } }, effects: [] };
    case 'executors':
      return { state: { ...state, overlay: { type: 'executors', top: 0 } }, effects: [] };
    case 'cycle_approval': {
      const next = APPROVAL_CYCLE[(APPROVAL_CYCLE.indexOf(state.approval) + 1) % APPROVAL_CYCLE.length]!;
      return runCommand(state, { type: 'backend', command: { type: 'set_approval', approval: next } });
    }
    case 'fork_focused':
      if (state.focus === undefined)
        return { state: flash(state, ':fork needs a focused block ([ or ])'), effects: [] };
      if (state.running) return { state: flash(state, 'a turn is running: Ctrl-C first'), effects: [] };
      return { state, effects: [{ type: 'command', command }] };
    default:
      // The approval mode may change mid-run: the engine reads it before each turn's calls.
      if (state.running && command.type === 'backend' && command.command.type !== 'set_approval') {
        return { state: flash(state, 'a turn is running: Ctrl-C first'), effects: [] };
      }
      return { state, effects: [{ type: 'command', command }] };
  }
}
