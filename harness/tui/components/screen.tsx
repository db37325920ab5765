import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import { overlayLines, pendingLines, promptLines } from '../render/chrome-lines.js';
import type { BlockLineCache } from '../render/line-cache.js';
import { visibleLines } from '../render/visible-lines.js';
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

/** Rows left for the conversation: the terminal's height less the status bar and the chrome. */
export function conversationRows(state: UiState): number {
  const { overlay, pending, prompt } = chromeLines(state);
  return Math.max(1, state.size.rows - 1 - overlay.length - pending.length - prompt.length);
}

/** Lines as Ink rows, each cut (never re-wrapped) at the terminal's width: they are wrapped already. */
function Lines({ lines, prefix }: { lines: readonly string[]; prefix: string }): ReactElement {
  return (
    <>
      {lines.map((line, i) => (
        // Rows are positions on screen, not items that move: the index is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Text key={`${prefix}${i}`} wrap="truncate-end">
          {line === '' ? ' ' : line}
        </Text>
      ))}
    </>
  );
}

/** The whole screen for one state: conversation, overlay, pending question, prompt, status bar. */
export function Screen({ state, cache }: { state: UiState; cache: BlockLineCache }): ReactElement {
  const { overlay, pending, prompt } = chromeLines(state);
  const rows = Math.max(1, state.size.rows - 1 - overlay.length - pending.length - prompt.length);
  cache.beginFrame(state);
  return (
    <Box flexDirection="column" width={state.size.columns} height={state.size.rows}>
      <Lines lines={visibleLines(state, cache, rows)} prefix="c" />
      <Lines lines={overlay} prefix="o" />
      <Lines lines={pending} prefix="q" />
      <Lines lines={prompt} prefix="p" />
      <StatusBar state={state} />
    </Box>
  );
}
