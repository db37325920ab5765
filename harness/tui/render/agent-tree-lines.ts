import chalk from 'chalk';
import stringWidth from 'string-width';
import { agentTreeRows } from '../agent-tree.js';
import type { SubAgentRun, UiState } from '../ui-state.js';
import { formatElapsed } from './tool-summary.js';

/** The agent tree's side panel width at this terminal width: a third or so, within bounds. */
export function agentPanelWidth(columns: number): number {
  return Math.max(24, Math.min(56, Math.floor(columns * 0.4)));
}

/** `1.2k` for counts past a thousand. */
function compact(count: number): string {
  return count < 1_000 ? String(count) : `${(count / 1_000).toFixed(count < 10_000 ? 1 : 0)}k`;
}

function statusLabel(run: SubAgentRun): string {
  // A typed failure says more than "error"; a blocking review is a result, but not a green one.
  if (run.failure) return chalk.red(`[${run.failure}]`);
  switch (run.status) {
    case 'running':
      return chalk.yellow('[running]');
    case 'done':
      return chalk.green('[done ✓]');
    default:
      return chalk.red(`[${run.status}]`);
  }
}

/** Cuts a plain line to `width` columns with an ellipsis. */
function cut(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let out = '';
  for (const char of text) {
    if (stringWidth(`${out}${char}…`) > width) break;
    out += char;
  }
  return `${out}…`;
}

/**
 * The agent tree as `rows` lines of `width` columns: `main`, then each
 * sub-agent under the agent that spawned it (`├─ agent-1 [running]`) with
 * its task, and its calls, tokens and time (live while it runs). The selected
 * run is highlighted; the list scrolls to keep it in view.
 */
export function agentTreeLines(state: UiState, selected: number, width: number, rows: number): string[] {
  const inner = Math.max(1, width - 2);
  const title = chalk.bold(cut('agents · Enter replays · x cancels · Esc', inner));
  const tree = agentTreeRows(state.agents);
  const body: string[] = [];
  let selectedAt = 0;
  if (tree.length === 0) body.push(chalk.dim(cut('no sub-agents in this session', inner)));
  else body.push('main');
  tree.forEach(({ run, lastAt }, i) => {
    const above = lastAt
      .slice(0, -1)
      .map((last) => (last ? '   ' : '│  '))
      .join('');
    const last = lastAt.at(-1) === true;
    const name = run.path.split('/').at(-1) ?? run.path;
    const head = `${above}${last ? '└─' : '├─'} `;
    const under = `${above}${last ? '   ' : '│  '}`;
    const label = statusLabel(run);
    const nameLine = cut(
      `${name}${run.agentName ? ` (${run.agentName})` : ''} `,
      inner - stringWidth(head) - stringWidth(label),
    );
    if (i === selected) selectedAt = body.length;
    body.push(`${head}${i === selected ? chalk.inverse(nameLine) : chalk.bold(nameLine)}${label}`);
    if (run.task)
      body.push(`${under}${chalk.dim(cut(run.task.replace(/\s+/g, ' '), inner - stringWidth(under)))}`);
    const tokens = run.tokens.inputTokens + run.tokens.cacheReadTokens + run.tokens.outputTokens;
    const time = formatElapsed((run.endedAt ?? state.now) - run.startedAt);
    const cache = run.cacheHitRate === undefined ? '' : ` · cache ${Math.round(run.cacheHitRate * 100)}%`;
    const turns = run.turns === undefined ? '' : ` · ${run.turns} turn${run.turns === 1 ? '' : 's'}`;
    const facts = `${run.toolCalls} calls · ${compact(tokens)} tok · ${time}${cache}${turns}`;
    body.push(`${under}${cut(facts, inner - stringWidth(under))}`);
    // While it runs, what it is doing now.
    if (run.status === 'running' && run.lastTool)
      body.push(`${under}${chalk.cyan(cut(`▸ ${run.lastTool}`, inner - stringWidth(under)))}`);
  });
  const room = Math.max(0, rows - 1);
  const start = Math.max(0, Math.min(selectedAt - Math.floor(room / 2), body.length - room));
  const shown = [title, ...body.slice(start, start + room)];
  while (shown.length < rows) shown.push('');
  return shown.slice(0, rows).map((line) => ` ${line}${' '.repeat(Math.max(0, inner - stringWidth(line)))}`);
}
