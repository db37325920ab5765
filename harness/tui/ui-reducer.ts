import type { Message } from '../../shared/conversation.js';
import { inertText } from '../terminal/inert-text.js';
import { inertValue } from '../terminal/inert-value.js';
import { applyEngineEvents, type UiEvent } from './apply-engine-events.js';
import type { KeyInput } from './key-input.js';
import { onKey } from './on-key.js';
import { replayLoaded } from './replay-view.js';
import { submitPrompt } from './submit-prompt.js';
import {
  type Effect,
  type Overlay,
  type SlashCommandInfo,
  type UiState,
  WHICH_KEY_DELAY_MS,
} from './ui-state.js';
import { flash, type UiStep } from './ui-step.js';
import type { ViewMetrics } from './view-metrics.js';

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
