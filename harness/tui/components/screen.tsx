import chalk from 'chalk';
import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import stringWidth from 'string-width';
import { inertStyledText } from '../../terminal/inert-text.js';
import { agentPanelWidth, agentTreeLines } from '../render/agent-tree-lines.js';
import { overlayLines, pendingLines, promptLines } from '../render/chrome-lines.js';
import type { BlockLineCache } from '../render/line-cache.js';
import { visibleLines } from '../render/visible-lines.js';
import { welcomeLines } from '../render/welcome-lines.js';
import { shownState } from '../replay-view.js';
import type { UiState } from '../ui-state.js';
import { StatusBar } from './status-bar.js';

/** The rows around the conversation (overlay, question, prompt, status bar) at this state. */
export function chromeLines(state: UiState): { overlay: string[]; pending: string[]; prompt: string[] } {
  const width = state.size.columns;
  return {
    overlay: overlayLines(state, width),
    pending: pendingLines(state, width),
    prompt: promptLines(state, width),
  };
}

/**
 * Rows the frame leaves free at the bottom of the terminal. A frame one row
 * short lets Ink diff lines itself, but its incremental writer left stale rows
 * in tmux (a changed row drawn as an extra one); so frames stay full height,
 * Ink writes each one whole after a clear, and `createRowDiffOutput`
 * (row-diff-output.ts) turns that into the rows that changed.
 */
export const FRAME_ROWS_LESS = 0;

/** Rows left for the conversation: the frame's height less the status bar and the chrome. */
export function conversationRows(state: UiState): number {
  const { overlay, pending, prompt } = chromeLines(state);
  return Math.max(1, state.size.rows - FRAME_ROWS_LESS - 1 - overlay.length - pending.length - prompt.length);
}

/**
 * Lines as Ink rows, each cut (never re-wrapped) at the terminal's width: they are wrapped already.
 * Untrusted text was made inert where it entered the state; here, the last step before the
 * terminal, only the renderers' own colours (SGR) pass as sequences, whatever a renderer forgot.
 */
function Lines({ lines, prefix }: { lines: readonly string[]; prefix: string }): ReactElement {
  return (
    <>
      {lines.map((line, i) => (
        // Rows are positions on screen, not items that move: the index is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Text key={`${prefix}${i}`} wrap="truncate-end">
          {line === '' ? ' ' : inertStyledText(line)}
        </Text>
      ))}
    </>
  );
}

/**
 * The conversation's rows: the live one or a replay (the same renderer), and
 * with the agent tree open, narrower, with the tree as a panel on its right.
 */
function conversationLines(state: UiState, cache: BlockLineCache, rows: number): string[] {
  const shown = shownState(state);
  if (shown.blocks.length === 0 && !state.replay && state.overlay?.type !== 'agent_tree') {
    const welcome = welcomeLines(state, state.size.columns - 2)
      .slice(0, rows)
      .map((line) => `  ${line}`);
    return [...welcome, ...Array.from({ length: rows - welcome.length }, () => '')];
  }
  if (state.overlay?.type !== 'agent_tree') return visibleLines(shown, cache, rows);
  const { columns } = state.size;
  const panel = agentPanelWidth(columns);
  const left = columns - panel - 1;
  const narrow = { ...shown, size: { ...shown.size, columns: left } };
  const tree = agentTreeLines(state, state.overlay.selected, panel, rows);
  return visibleLines(narrow, cache, rows).map(
    (line, i) => `${line}${' '.repeat(Math.max(0, left - stringWidth(line)))}${chalk.dim('│')}${tree[i]}`,
  );
}

/** The whole screen for one state: conversation, overlay, pending question, prompt, status bar. */
export function Screen({ state, cache }: { state: UiState; cache: BlockLineCache }): ReactElement {
  const { overlay, pending, prompt } = chromeLines(state);
  const rows = Math.max(
    1,
    state.size.rows - FRAME_ROWS_LESS - 1 - overlay.length - pending.length - prompt.length,
  );
  cache.beginFrame(state);
  return (
    <Box flexDirection="column" width={state.size.columns} height={state.size.rows - FRAME_ROWS_LESS}>
      <Lines lines={conversationLines(state, cache, rows)} prefix="c" />
      <Lines lines={overlay} prefix="o" />
      <Lines lines={pending} prefix="q" />
      <Lines lines={prompt} prefix="p" />
      <StatusBar state={state} />
    </Box>
  );
}
