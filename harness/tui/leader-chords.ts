import type { UiCommand } from './ui-command.js';

export interface LeaderChord {
  key: string;
  label: string;
  command: UiCommand;
}

/** The `Space` chords of NORMAL mode; the which-key overlay lists exactly these. */
export const LEADER_CHORDS: readonly LeaderChord[] = [
  { key: 'n', label: 'toggle network (restarts the executor)', command: { type: 'toggle_network' } },
  {
    key: 'p',
    label: 'plan: a planning agent under the plan policy',
    command: { type: 'backend', command: { type: 'set_activity', activity: 'plan' } },
  },
  {
    key: 'x',
    label: 'execute .skate/plan.md in a fresh agent',
    command: { type: 'backend', command: { type: 'set_activity', activity: 'execute' } },
  },
  {
    key: 'm',
    label: 'approval mode: auto → ask → deny-writes (or :approval MODE)',
    command: { type: 'cycle_approval' },
  },
  { key: 'e', label: 'edit .skate/plan.md in $EDITOR', command: { type: 'edit_plan' } },
  { key: 'a', label: 'agent tree', command: { type: 'agent_tree' } },
  { key: 's', label: 'executors: policy, limits, live denials', command: { type: 'executors' } },
  {
    key: 'c',
    label: 'clear the conversation (new session)',
    command: { type: 'backend', command: { type: 'clear' } },
  },
  { key: '?', label: 'toggle this overlay', command: { type: 'which_key' } },
];

export function findChord(keyText: string): LeaderChord | undefined {
  return LEADER_CHORDS.find((chord) => chord.key === keyText);
}
