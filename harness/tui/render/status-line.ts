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
  if (state.interrupting) return 'interrupting…';
  if (state.busy) return state.busy;
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
    parts.push('asking model');
  }
  const subAgents = Object.values(state.agents).filter((run) => run.status === 'running').length;
  if (subAgents > 0) parts.push(`${subAgents} sub-agent${subAgents === 1 ? '' : 's'} running`);
  return parts.join(' · ');
}

/** One piece of the status bar, in the order drawn; `role` picks its colour. */
export interface StatusPart {
  role: 'mode' | 'activity' | 'doing' | 'usage' | 'net' | 'model';
  text: string;
}

/** The shortest a message or activity is cut to before less important parts are dropped for it. */
const MIN_DOING = 14;
/** A message up to this long is shown whole before the context fill and the cost are. */
const FAIR_DOING = 40;

/**
 * The status bar laid out for `columns`, by order of importance: mode,
 * PLAN/EXECUTE and the NET badge always; then what is happening (cut to
 * MIN_DOING at first), the model's short name (`sonnet-4-5`), the message up
 * to FAIR_DOING, context fill, cost, the rest of a long message, the model's
 * full name, this turn's tokens, the session's. Parts are shortened before they are dropped, never cut mid-word
 * into nonsense (`cl…`).
 */
export function statusLayout(s: StatusSegments, columns: number): StatusPart[] {
  const form = { doing: 0, model: 0, ctx: false, cost: false, turn: false, total: false };
  type Form = typeof form;
  const doingAt = (limit: number): string => (s.doing === '' ? '' : ` · ${ellipsis(s.doing, limit)}`);
  const doingText = (f: Form): string => (f.doing === 0 ? '' : doingAt(f.doing));
  const modelText = (f: Form): string =>
    f.model === 0 ? '' : ` ${f.model === 1 ? shortModel(s.model) : s.model}`;
  const usageText = (f: Form): string => {
    const tokens = [f.turn ? s.turn : '', f.total ? s.total : ''].filter((part) => part !== '').join(' | ');
    const parts = [tokens, f.cost ? s.cost : '', f.ctx ? s.context : ''].filter((part) => part !== '');
    return parts.length === 0 ? '' : ` [ ${parts.join(' · ')} ]`;
  };
  const parts = (f: Form): StatusPart[] => [
    { role: 'mode', text: ` ${s.mode} ` },
    { role: 'activity', text: ` [ ${s.activity}` },
    { role: 'doing', text: doingText(f) },
    { role: 'activity', text: ' ]' },
    { role: 'usage', text: usageText(f) },
    { role: 'net', text: ` [ NET: ${s.network} ]` },
    { role: 'model', text: modelText(f) },
  ];
  const width = (f: Form): number => parts(f).reduce((sum, part) => sum + part.text.length, 0);
  const upgrade = (change: Partial<Form>): void => {
    const next = { ...form, ...change };
    if (width(next) <= columns) Object.assign(form, next);
  };
  /** The message at up to `limit` columns, as far as the room left allows. */
  const fill = (limit: number): void => {
    if (s.doing === '') return;
    const room = columns - width({ ...form, doing: 0 }) - 3;
    const wanted = Math.min(limit, s.doing.length, room);
    if (wanted >= Math.min(MIN_DOING, s.doing.length) && wanted > form.doing) form.doing = wanted;
  };
  upgrade({ doing: MIN_DOING });
  upgrade({ model: 1 });
  // A message of a usual length outranks the figures for as long as it is shown.
  fill(FAIR_DOING);
  upgrade({ ctx: true });
  upgrade({ cost: true });
  // Then the rest of a long message, cut with an ellipsis where the room ends…
  fill(Number.POSITIVE_INFINITY);
  // …and only then the model's full name and the token figures.
  for (const change of [{ model: 2 }, { turn: true }, { total: true }]) upgrade(change);
  const laid = parts(form).filter((part) => part.text !== '');
  // A terminal narrower than the three badges still gets one row: cut at the edge.
  let left = columns;
  return laid.flatMap((part) => {
    if (left <= 0) return [];
    const text = part.text.length <= left ? part.text : part.text.slice(0, left);
    left -= text.length;
    return [{ ...part, text }];
  });
}

/** `claude-sonnet-4-5-20250929` → `sonnet-4-5`: the family and version say which model it is. */
export function shortModel(model: string): string {
  return model.replace(/^claude-/, '').replace(/-\d{8}$/, '');
}

function ellipsis(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, Math.max(1, limit - 1))}…`;
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
