import type { KeyInput } from './key-input.js';
import type { Effect, SubAgentRun, UiState } from './ui-state.js';

/** A sub-agent as the tree shows it: how deep it is, and for each level whether it is the last sibling. */
export interface AgentTreeRow {
  run: SubAgentRun;
  /** One entry per level from the top: true where that ancestor (or, last, the run itself) is the last sibling. */
  lastAt: boolean[];
}

/**
 * Sub-agents in tree order (each under the agent that spawned it, siblings in
 * the order they started). A run whose parent is unknown is shown at the top.
 */
export function agentTreeRows(agents: Readonly<Record<string, SubAgentRun>>): AgentTreeRow[] {
  const runs = Object.values(agents);
  const parentOf = (run: SubAgentRun): string => {
    const cut = run.path.lastIndexOf('/');
    const parent = cut === -1 ? '' : run.path.slice(0, cut);
    return parent !== '' && agents[parent] ? parent : '';
  };
  const children = new Map<string, SubAgentRun[]>();
  for (const run of runs) children.set(parentOf(run), [...(children.get(parentOf(run)) ?? []), run]);
  const rows: AgentTreeRow[] = [];
  const walk = (parent: string, lastAt: boolean[]): void => {
    const siblings = children.get(parent) ?? [];
    siblings.forEach((run, i) => {
      const here = [...lastAt, i === siblings.length - 1];
      rows.push({ run, lastAt: here });
      walk(run.path, here);
    });
  };
  walk('', []);
  return rows;
}

/**
 * Keys while the agent tree is open: j/k (arrows) move, Enter replays the selected run, x cancels
 * it (a running background sub-agent), anything else closes it.
 */
export function onAgentTreeKey(
  state: UiState,
  selected: number,
  key: KeyInput,
): { state: UiState; effects: Effect[] } {
  const rows = agentTreeRows(state.agents);
  const count = rows.length;
  const select = (index: number) => ({
    state: { ...state, overlay: { type: 'agent_tree' as const, selected: index } },
    effects: [],
  });
  if ((key.text === 'j' || key.name === 'down') && count > 0) return select((selected + 1) % count);
  if ((key.text === 'k' || key.name === 'up') && count > 0) return select((selected + count - 1) % count);
  const { overlay: _closed, ...closed } = state;
  const run = rows[Math.min(selected, count - 1)]?.run;
  if (key.text === 'x' && run) return { state, effects: [{ type: 'cancel_agent', agent: run.path }] };
  if (key.name !== 'return' || !run) return { state: closed, effects: [] };
  return {
    state: {
      ...closed,
      mode: 'normal',
      replay: {
        agent: run.path,
        loading: true,
        view: { blocks: [], nextId: 1, expanded: new Set(), scroll: { follow: true } },
      },
    },
    effects: [{ type: 'load_replay', agent: run.path, parentCallId: run.parentCallId }],
  };
}
