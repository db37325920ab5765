import { inertStyledText } from '../terminal/inert-text.js';
import { type BlockLineCache, GUTTER } from './render/line-cache.js';
import { shownState } from './replay-view.js';
import type { UiState } from './ui-state.js';

/** The last line printed, under the conversation: how to come back. */
export const SCROLLBACK_FOOTER =
  '── the conversation is in your scrollback above · any key goes back to skate ──';

/**
 * The conversation as the view shows it (the same lines: collapsed calls collapsed, expanded
 * ones expanded, a replay when one is open), every block, for the terminal's own scrollback
 * (#24: the full-screen view keeps nothing there to scroll or copy). Untrusted text was made
 * inert where it entered the state; each line passes inertStyledText again here, as the
 * view's rows do, since this is the last step before the terminal.
 */
export function scrollbackText(state: UiState, cache: BlockLineCache): string {
  const shown = shownState(state);
  const gutter = ' '.repeat(GUTTER);
  const lines: string[] = [];
  for (const block of shown.blocks) {
    for (const line of cache.lines(block, shown.expanded.has(block.id), shown.size.columns)) {
      lines.push(gutter + inertStyledText(line));
    }
  }
  return `\r\n${lines.join('\r\n')}\r\n\r\n${SCROLLBACK_FOOTER}\r\n`;
}
