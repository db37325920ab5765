import type { TokenUsage } from '../../../shared/engine-events.js';
import type { Block, UiState } from '../ui-state.js';

/** Every input token of a request, cached or not: what `i:` counts (`c:` is the cached part). */
const promptTokens = (usage: TokenUsage | undefined): number =>
  usage ? usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens : 0;

export interface StatusSegments {
  mode: string;
  activity: 'PLAN' | 'EXECUTE';
  /** `i:1234(c:800) o:567`; empty before the first reply. */
  turn: string;
  /** `total i:9999 o:2345`. */
  total: string;
  cost: string;
  /** `ctx 38%`; empty until the engine reports it. */
  context: string;
  network: UiState['network'];
  model: string;
  /** What is happening right now, or a short message. */
  doing: string;
}

/** The status bar's content as data, so its layout and its tests share one source. */
export function statusSegments(state: UiState): StatusSegments {
  const { turn, total, costUsd, context } = state.usage;
  return {
    mode: state.replay ? `REPLAY ${state.replay.agent}` : state.mode.toUpperCase(),
    activity: state.activity === 'plan' ? 'PLAN' : 'EXECUTE',
    turn: `i:${promptTokens(turn)}(c:${turn?.cacheReadTokens ?? 0}) o:${turn?.outputTokens ?? 0}`,
    total: `total i:${promptTokens(total)} o:${total.outputTokens}`,
    cost: `$${costUsd.toFixed(2)}`,
    context:
      context && context.windowTokens > 0
        ? `ctx ${Math.round((100 * context.usedTokens) / context.windowTokens)}%`
        : '',
    network: state.network,
    model: state.model,
    doing: doing(state),
  };
}

function doing(state: UiState): string {
  if (state.flash && state.flash.until > state.now) return state.flash.text;
  if (state.leader) return 'Space …';
  const waiting = state.pending[0];
  if (waiting)
    return waiting.type === 'approval'
      ? 'waiting for approval'
      : waiting.type === 'ask_user'
        ? 'waiting for your answer'
        : 'loop cap: continue?';
  if (!state.running) return '';
  const parts: string[] = [];
  const runningTools = runningToolNames(state.blocks);
  const last = state.blocks.at(-1);
  if (runningTools.length > 0) {
    parts.push(`running ${runningTools.join(', ')}`);
  } else if (last && (last.kind === 'assistant' || last.kind === 'thinking') && last.streaming) {
    parts.push(last.kind === 'thinking' ? 'thinking' : 'streaming');
  } else {
    parts.push('waiting for the model');
  }
  const subAgents = Object.values(state.agents).filter((run) => run.status === 'running').length;
  if (subAgents > 0) parts.push(`${subAgents} sub-agent${subAgents === 1 ? '' : 's'} running`);
  return parts.join(' · ');
}

/** Running tools' names per block list: a frame that changes no block (a key, a tick) does not look again. */
const runningByBlocks = new WeakMap<readonly Block[], string[]>();

function runningToolNames(blocks: readonly Block[]): string[] {
  let names = runningByBlocks.get(blocks);
  if (names) return names;
  names = [];
  // Running calls belong to the current turn: look back to the last prompt only, not over the whole session.
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i]!;
    if (block.kind === 'user') break;
    if (block.kind === 'tool' && block.status === 'running' && !names.includes(block.name)) {
      names.unshift(block.name);
    }
  }
  runningByBlocks.set(blocks, names);
  return names;
}
