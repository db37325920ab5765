import type { Message } from '../../shared/conversation.js';
import { SUB_AGENT_KICKOFF } from '../agents/sub-agent-prompt.js';
import { applyEngineEvents, type UiEvent } from './apply-engine-events.js';
import { historyEvents } from './history-events.js';
import { type ConversationView, initialUiState, type UiState } from './ui-state.js';

/**
 * The state as the conversation's renderer and its movement keys see it: the
 * live conversation, or during a replay the sub-agent's, with the replay's own
 * focus, expansion and scroll. One renderer and one set of keys serve both.
 */
export function shownState(state: UiState): UiState {
  if (!state.replay) return state;
  const { focus: _live, ...rest } = state;
  const { view } = state.replay;
  return {
    ...rest,
    blocks: view.blocks,
    nextId: view.nextId,
    expanded: view.expanded,
    scroll: view.scroll,
    ...(view.focus !== undefined && { focus: view.focus }),
  };
}

/** Puts the view of `shown` (from `shownState(state)`, then moved) back into the replay of `state`. */
export function withShownView(state: UiState, shown: UiState): UiState {
  if (!state.replay) return shown;
  const view: ConversationView = {
    blocks: shown.blocks,
    nextId: shown.nextId,
    expanded: shown.expanded,
    scroll: shown.scroll,
    ...(shown.focus !== undefined && { focus: shown.focus }),
  };
  return { ...state, replay: { ...state.replay, view } };
}

/**
 * A replay whose session log was read: its messages become blocks exactly as
 * a resumed session's do (history events through the same fold), starting at
 * the top, the task. An error shows as the replay's one block.
 */
export function replayLoaded(
  state: UiState,
  loaded: { agent: string; conversation?: readonly Message[]; error?: string },
  now: number,
): UiState {
  if (state.replay?.agent !== loaded.agent) return state;
  const events: UiEvent[] = loaded.conversation
    ? withTask(historyEvents(loaded.conversation), state.agents[loaded.agent]?.task)
    : [{ type: 'error', agent: [], message: loaded.error ?? 'nothing recorded' }];
  const base = initialUiState({
    now,
    columns: state.size.columns,
    rows: state.size.rows,
    model: state.model,
  });
  const built = applyEngineEvents(base, events, now);
  const view: ConversationView = {
    blocks: built.blocks,
    nextId: built.nextId,
    expanded: new Set(),
    scroll: { follow: false, top: 0 },
  };
  return { ...state, replay: { agent: loaded.agent, loading: false, view } };
}

/**
 * A sub-agent's log starts with the generic kickoff prompt (its task is in its
 * system prompt); the replay shows the task it was given there instead.
 */
function withTask(events: UiEvent[], task: string | undefined): UiEvent[] {
  if (task === undefined || task === '') return events;
  const first = events.findIndex((event) => event.type === 'user_prompt');
  const prompt = events[first];
  if (prompt?.type !== 'user_prompt' || prompt.text !== SUB_AGENT_KICKOFF) return events;
  const shown = events.slice();
  shown[first] = { ...prompt, text: task };
  return shown;
}

/** Back to the live conversation, whose view was never touched. */
export function closeReplay(state: UiState): UiState {
  const { replay: _closed, ...rest } = state;
  return rest;
}
