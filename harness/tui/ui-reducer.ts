import type { Message } from '../../shared/conversation.js';
import { inertText } from '../terminal/inert-text.js';
import { inertValue } from '../terminal/inert-value.js';
import { onAgentTreeKey } from './agent-tree.js';
import { answerPending } from './answer-pending.js';
import { applyEngineEvents, type UiEvent } from './apply-engine-events.js';
import { editPrompt } from './edit-prompt.js';
import { isCtrl, type KeyInput } from './key-input.js';
import { findChord } from './leader-chords.js';
import { executorPanelLines } from './render/executor-panel-lines.js';
import { closeReplay, replayLoaded, shownState, withShownView } from './replay-view.js';
import { runCommand } from './run-ui-command.js';
import { scrollLines } from './scroll-lines.js';
import { completeSlash } from './slash-completion.js';
import { parseUiCommand, slashCommand } from './ui-command.js';
import {
  DOUBLE_CTRL_C_MS,
  type Effect,
  type Overlay,
  type SlashCommandInfo,
  type UiState,
  WHICH_KEY_DELAY_MS,
} from './ui-state.js';
import { flash, type UiStep } from './ui-step.js';
import { layoutBlocks, resolveTop, scrollTo, type ViewMetrics } from './view-metrics.js';

/** Everything that can change the UI: keys, engine events, time, the terminal's size, the shell's reports. */
export type UiInput =
  | { type: 'key'; key: KeyInput; now: number }
  | { type: 'events'; events: readonly UiEvent[]; now: number }
  | { type: 'tick'; now: number }
  | { type: 'resize'; columns: number; rows: number }
  /** The prompt's run ended (its promise settled). */
  | { type: 'run_finished'; now: number }
  /** The agent changed under the UI (model, activity, network, a new session after clear/resume). */
  | {
      type: 'backend';
      now: number;
      model?: string;
      activity?: UiState['activity'];
      network?: UiState['network'];
      approval?: UiState['approval'];
      /** The policy the new agent runs under (its name). */
      policy?: string;
      sessionId?: string;
      /** A new conversation: drop the blocks. */
      reset?: boolean;
      /** Put this in the prompt, to be edited and sent (a prompt forked away to be asked again). */
      retype?: string;
    }
  | { type: 'flash'; text: string; now: number }
  /** The shell started (text) or finished (no text) something slow for the person. */
  | { type: 'busy'; text?: string; now: number }
  | { type: 'overlay'; overlay: Overlay | undefined }
  /** The runtime's executor registry changed: its rows now. */
  | { type: 'executors'; rows: UiState['executors'] }
  /** A sub-agent's session log, read for its replay (or why it could not be). */
  | { type: 'replay_loaded'; agent: string; conversation?: readonly Message[]; error?: string; now: number }
  /** Sends `text` as if typed and entered (`skate "task"` opening the UI on its task). */
  | { type: 'submit'; text: string; now: number }
  /** What completion offers after a `/` now (the slash aliases and the MCP servers' prompts). */
  | { type: 'slash_commands'; commands: readonly SlashCommandInfo[] };

// Moved out; still importable from here, as before.
export { runCommand } from './run-ui-command.js';
export { messageRoom } from './scroll-lines.js';
export type { UiStep } from './ui-step.js';

export type UiReducer = (state: UiState, input: UiInput) => UiStep;

/** The UI's whole behaviour as a pure function of its state and one input; heights come from `metrics`. */
export function createUiReducer(metrics: ViewMetrics): UiReducer {
  return (state, input) => {
    switch (input.type) {
      case 'key':
        return onKey({ ...state, now: input.now }, input.key, metrics);
      case 'events':
        return autoApprove(applyEngineEvents(state, input.events, input.now));
      case 'tick':
        return { state: { ...state, now: input.now }, effects: [] };
      case 'resize':
        return { state: { ...state, size: { columns: input.columns, rows: input.rows } }, effects: [] };
      case 'run_finished': {
        // What the run was doing ends with it, an interruption included.
        const { interrupting: _done, ...rest } = state;
        return { state: { ...rest, running: false, pending: [], now: input.now }, effects: [] };
      }
      case 'busy': {
        const { busy: _done, ...rest } = state;
        return {
          state: input.text
            ? { ...rest, busy: inertText(input.text), now: input.now }
            : { ...rest, now: input.now },
          effects: [],
        };
      }
      case 'backend': {
        const next: UiState = {
          ...state,
          now: input.now,
          ...(input.model !== undefined && { model: inertText(input.model) }),
          ...(input.activity !== undefined && { activity: input.activity }),
          ...(input.network !== undefined && { network: input.network }),
          ...(input.approval !== undefined && { approval: input.approval }),
          ...(input.policy !== undefined &&
            state.about && { about: { ...state.about, policy: input.policy } }),
          ...(input.sessionId !== undefined && { sessionId: input.sessionId }),
          ...(input.retype !== undefined && {
            mode: 'insert' as const,
            input: { text: input.retype, cursor: input.retype.length },
          }),
        };
        if (!input.reset) return { state: next, effects: [] };
        const { focus: _focus, ...rest } = next;
        return {
          state: {
            ...rest,
            blocks: [],
            expanded: new Set(),
            scroll: { follow: true },
            pending: [],
            agents: {},
          },
          effects: [],
        };
      }
      case 'flash':
        return { state: flash({ ...state, now: input.now }, input.text), effects: [] };
      case 'submit':
        return submitPrompt({
          ...state,
          now: input.now,
          input: { text: input.text, cursor: input.text.length },
        });
      case 'overlay': {
        const { overlay: _old, ...rest } = state;
        // Session titles, error messages, paths: shown as text, never as control sequences.
        return { state: input.overlay ? { ...rest, overlay: inertValue(input.overlay) } : rest, effects: [] };
      }
      case 'replay_loaded':
        return { state: replayLoaded({ ...state, now: input.now }, input, input.now), effects: [] };
      case 'slash_commands':
        // MCP prompts' names, descriptions and arguments are a server's text: kept as text only.
        return { state: { ...state, slashCommands: inertValue(input.commands) }, effects: [] };
      case 'executors':
        // Hosts, commands, tool output and server names come from sandboxes: kept as text only.
        return { state: { ...state, executors: inertValue(input.rows) }, effects: [] };
    }
  };
}

/** True while the which-key overlay is up: toggled on, or a leader waiting longer than the delay. */
export function whichKeyVisible(state: UiState): boolean {
  if (state.overlay?.type === 'which_key') return true;
  return state.leader !== undefined && state.now - state.leader.startedAt >= WHICH_KEY_DELAY_MS;
}

function withoutLeader(state: UiState): UiState {
  const { leader: _gone, ...rest } = state;
  return rest;
}

/** Approvals of tools the person approved for the whole session are answered at once. */
function autoApprove(state: UiState): UiStep {
  if (state.autoApprove.length === 0) return { state, effects: [] };
  const effects: Effect[] = [];
  const pending = state.pending.filter((item) => {
    if (item.type !== 'approval' || !state.autoApprove.includes(item.name)) return true;
    effects.push({
      type: 'answer',
      command: { type: 'approval_response', requestId: item.requestId, decision: 'approve' },
    });
    return false;
  });
  return { state: effects.length > 0 ? { ...state, pending } : state, effects };
}

function onKey(state: UiState, key: KeyInput, metrics: ViewMetrics): UiStep {
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

function onOverlayKey(state: UiState, overlay: Overlay, key: KeyInput): UiStep {
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

/**
 * A replay is read-only: the movement keys of NORMAL work on its own view,
 * Esc goes back to the live conversation, and nothing types or runs.
 */
function onReplayKey(state: UiState, key: KeyInput, metrics: ViewMetrics): UiStep {
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

function onLeaderKey(state: UiState, key: KeyInput): UiStep {
  const rest = withoutLeader(state);
  if (key.name === 'escape') return { state: rest, effects: [] };
  const chord = key.name === undefined && !key.ctrl ? findChord(key.text) : undefined;
  if (!chord) {
    const name = key.name ?? (key.ctrl ? `Ctrl-${key.text}` : key.text);
    return { state: flash(rest, `Space ${name} is not bound (Space ? lists the chords)`), effects: [] };
  }
  return runCommand(rest, chord.command);
}

function onInsertKey(state: UiState, key: KeyInput): UiStep {
  if (key.name === 'escape') return { state: { ...state, mode: 'normal' }, effects: [] };
  if (key.name === 'return' && !key.meta) return submitPrompt(state);
  if (key.name === 'tab') return { state: completeSlash(state) ?? state, effects: [] };
  return { state: editPrompt(state, key) ?? state, effects: [] };
}

function submitPrompt(state: UiState): UiStep {
  const text = state.input.text;
  if (text.trim() === '') return { state, effects: [] };
  const { historyIndex: _walked, ...rest } = state;
  const history = rest.history.at(-1) === text ? rest.history : [...rest.history, text];
  const cleared: UiState = { ...rest, history, input: { text: '', cursor: 0 } };
  const slash = slashCommand(text);
  if (slash)
    return slash.ok ? runCommand(cleared, slash.command) : { state: flash(state, slash.error), effects: [] };
  if (state.running)
    return { state: flash(state, 'a turn is running: wait, or Ctrl-C to interrupt it'), effects: [] };
  // The model gets the prompt as typed (a paste included); the screen shows it inert.
  const user = { kind: 'user' as const, id: `user-${state.nextId}`, text: inertText(text) };
  return {
    state: {
      ...cleared,
      nextId: state.nextId + 1,
      blocks: [...state.blocks, user],
      running: true,
      scroll: { follow: true },
    },
    effects: [{ type: 'prompt', text }],
  };
}

function onCommandKey(state: UiState, key: KeyInput): UiStep {
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

function onNormalKey(state: UiState, key: KeyInput, metrics: ViewMetrics): UiStep {
  const same = { state, effects: [] };
  if (key.name === 'escape') {
    const { focus: _unfocused, ...rest } = state;
    return { state: rest, effects: [] };
  }
  if (key.name === 'return' || key.name === 'tab') return { state: toggleFocused(state), effects: [] };
  if (
    key.name !== undefined &&
    key.name !== 'up' &&
    key.name !== 'down' &&
    key.name !== 'pageup' &&
    key.name !== 'pagedown'
  ) {
    return same;
  }
  const rows = metrics.conversationRows(state);
  const scrollBy = (delta: number): UiStep => {
    const { total } = layoutBlocks(state, metrics);
    const top = resolveTop(state, total, rows);
    return { state: { ...state, scroll: scrollTo(top + delta, total, rows) }, effects: [] };
  };
  const half = Math.max(1, Math.floor(rows / 2));
  if (isCtrl(key, 'd')) return scrollBy(half);
  if (isCtrl(key, 'u')) return scrollBy(-half);
  if (key.ctrl || key.meta) return same;
  if (key.text === 'j' || key.name === 'down') return scrollBy(1);
  if (key.text === 'k' || key.name === 'up') return scrollBy(-1);
  if (key.name === 'pagedown') return scrollBy(rows);
  if (key.name === 'pageup') return scrollBy(-rows);
  switch (key.text) {
    case 'g':
      return { state: { ...state, scroll: { follow: false, top: 0 } }, effects: [] };
    case 'G':
      return { state: { ...state, scroll: { follow: true } }, effects: [] };
    case ']':
      return { state: moveFocus(state, 1, metrics), effects: [] };
    case '[':
      return { state: moveFocus(state, -1, metrics), effects: [] };
    case 'i':
    case 'a':
      return { state: { ...state, mode: 'insert' }, effects: [] };
    case ':':
      return { state: { ...state, mode: 'command', commandLine: '' }, effects: [] };
    case ' ':
      return {
        state: { ...state, leader: { startedAt: state.now } },
        effects: [{ type: 'wake', at: state.now + WHICH_KEY_DELAY_MS }],
      };
    default:
      return same;
  }
}

function toggleFocused(state: UiState): UiState {
  if (state.focus === undefined) return state;
  const expanded = new Set(state.expanded);
  if (expanded.has(state.focus)) expanded.delete(state.focus);
  else expanded.add(state.focus);
  return { ...state, expanded };
}

/** Moves focus to the next/previous block (from none: the last/first one) and scrolls it into view. */
function moveFocus(state: UiState, step: 1 | -1, metrics: ViewMetrics): UiState {
  const { blocks } = state;
  if (blocks.length === 0) return state;
  const current = state.focus === undefined ? -1 : blocks.findIndex((block) => block.id === state.focus);
  const index =
    current === -1
      ? step === 1
        ? 0
        : blocks.length - 1
      : Math.min(blocks.length - 1, Math.max(0, current + step));
  const focused: UiState = { ...state, focus: blocks[index]!.id };
  const rows = metrics.conversationRows(focused);
  const { spans, total } = layoutBlocks(focused, metrics);
  const span = spans[index]!;
  const top = resolveTop(focused, total, rows);
  if (span.top < top) return { ...focused, scroll: scrollTo(span.top, total, rows) };
  const bottom = span.top + Math.min(span.height, rows);
  if (bottom > top + rows) return { ...focused, scroll: scrollTo(bottom - rows, total, rows) };
  return focused;
}
