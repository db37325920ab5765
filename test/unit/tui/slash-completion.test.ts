import { describe, expect, it } from 'vitest';
import { createUiReducer } from '../../../harness/tui/ui-reducer.js';
import { initialUiState, type UiState } from '../../../harness/tui/ui-state.js';

const reduce = createUiReducer({ blockHeight: () => 1, conversationRows: () => 20 });
const COMMANDS = [
  { name: 'clear', hint: '', description: 'new conversation' },
  { name: 'mcp__p__review', hint: '<file> [focus]', description: 'Review a file.' },
  { name: 'mcp__p__release', hint: '', description: 'Release \u001b]0;PWNED\u0007 notes' },
];

function typed(text: string): UiState {
  let state = initialUiState({ now: 0, columns: 80, rows: 20, model: 'm' });
  state = reduce(state, { type: 'slash_commands', commands: COMMANDS }).state;
  return reduce(state, { type: 'key', key: { text }, now: 0 }).state;
}
const tab = (state: UiState): UiState =>
  reduce(state, { type: 'key', key: { text: '', name: 'tab' }, now: 0 }).state;

describe('slash completion', () => {
  it('keeps the offered commands inert', () => {
    expect(typed('/').slashCommands?.[2]?.description).toBe('Release ␛]0;PWNED␇ notes');
  });

  it('Tab completes the common prefix, then the one match with a space', () => {
    const common = tab(typed('/mcp'));
    expect(common.input).toEqual({ text: '/mcp__p__re', cursor: 11 });
    const one = tab(typed('/mcp__p__rev'));
    expect(one.input).toEqual({ text: '/mcp__p__review ', cursor: 16 });
    // Nothing to complete: Tab changes nothing.
    expect(tab(typed('/nothing')).input.text).toBe('/nothing');
    expect(tab(typed('plain text')).input.text).toBe('plain text');
  });
});
