import type { KeyInput } from './key-input.js';
import { runCommand } from './run-ui-command.js';
import { parseUiCommand } from './ui-command.js';
import type { UiState } from './ui-state.js';
import { flash, type UiStep } from './ui-step.js';

/** The `:` line: typed text, Backspace, Enter runs it, Esc (or Backspace on empty) leaves. */
export function onCommandKey(state: UiState, key: KeyInput): UiStep {
  if (key.name === 'escape') return { state: { ...state, mode: 'normal', commandLine: '' }, effects: [] };
  if (key.name === 'backspace') {
    if (state.commandLine === '') return { state: { ...state, mode: 'normal' }, effects: [] };
    return { state: { ...state, commandLine: state.commandLine.slice(0, -1) }, effects: [] };
  }
  if (key.name === 'return') {
    const parsed = parseUiCommand(state.commandLine);
    const back: UiState = { ...state, mode: 'normal', commandLine: '' };
    return parsed.ok ? runCommand(back, parsed.command) : { state: flash(back, parsed.error), effects: [] };
  }
  if (key.name !== undefined || key.ctrl || key.meta) return { state, effects: [] };
  return { state: { ...state, commandLine: state.commandLine + key.text }, effects: [] };
}
