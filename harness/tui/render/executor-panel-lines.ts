import os from 'node:os';
import chalk from 'chalk';
import { REASON_TEXT } from '../../../shared/network-allowlist.js';
import type { ExecutorDenial, ExecutorRow, ExecutorState } from '../../runtime/executor-registry.js';
import { inertText } from '../../terminal/inert-text.js';
import { cutLine } from './block-lines.js';
import { formatElapsed } from './tool-summary.js';

/** Denials shown under each executor (the newest); the rest are counted. */
export const SHOWN_DENIALS = 3;

const STATE_COLOUR: Record<ExecutorState, (text: string) => string> = {
  starting: chalk.yellow,
  ready: chalk.green,
  restarting: chalk.yellow,
  stopped: chalk.dim,
};

/**
 * The executor panel's lines, each cut (never wrapped) to `width` columns: per executor its
 * role and name, pid, state, uptime and calls; its policy in short (network, write roots, read
 * roots), its limits, and its latest denials. Every string that came from a sandbox or a
 * workspace (hosts, commands, tool output, server names, paths) is made inert here, whatever
 * the registry holds.
 */
export function executorPanelLines(rows: readonly ExecutorRow[], now: number, width: number): string[] {
  if (rows.length === 0) return [chalk.dim('no executor has started yet')];
  const running = rows.filter((row) => row.state !== 'stopped').length;
  const lines = [
    chalk.dim(`${running} running · ${rows.length - running} stopped · Esc/q closes · j/k scroll`),
  ];
  for (const row of rows) lines.push('', ...executorLines(row, now));
  return lines.map((line) => cutLine(line, width));
}

function executorLines(row: ExecutorRow, now: number): string[] {
  const who =
    row.role === 'main' || row.role === 'plan' || row.role === 'execute'
      ? row.role
      : `${row.role} ${row.name}`;
  const marker = row.state === 'stopped' ? chalk.dim('○') : STATE_COLOUR[row.state]('●');
  const up = formatElapsed((row.stoppedAt ?? now) - row.startedAt);
  const head = [
    chalk.bold(inertText(who)),
    row.pid === undefined ? 'remote' : `pid ${row.pid}`,
    STATE_COLOUR[row.state](row.state),
    `${row.state === 'stopped' ? 'ran' : 'up'} ${up}`,
    `${row.toolCalls} call${row.toolCalls === 1 ? '' : 's'}`,
    row.denialCount > 0
      ? chalk.red(`${row.denialCount} denial${row.denialCount === 1 ? '' : 's'}`)
      : chalk.dim('no denials'),
  ].join(chalk.dim(' · '));
  const lines = [`${marker} ${head}`];
  const { policy } = row;
  if (!policy) {
    lines.push(`  ${chalk.dim('policy')} chosen and enforced by the executor's server`);
  } else {
    lines.push(
      `  ${chalk.dim('policy')} ${inertText(policy.name)} · net ${inertText(policy.network)} · ${chalk.dim('write')} ${paths(policy.write)}`,
      `  ${chalk.dim('read')} ${paths(policy.read)}${policy.readDenied > 0 ? chalk.dim(` (${policy.readDenied} paths hidden)`) : ''}`,
    );
    const { limits } = policy;
    lines.push(
      `  ${chalk.dim('limits')} ${limits.commandTimeoutSeconds} s/command · ${limits.memoryMiB} MiB · ${limits.processes} processes · ${bytes(limits.outputBytes)} output`,
    );
  }
  const older = row.denialCount - Math.min(SHOWN_DENIALS, row.denials.length);
  if (older > 0) lines.push(chalk.dim(`  … ${older} earlier denial${older === 1 ? '' : 's'}`));
  for (const denial of row.denials.slice(-SHOWN_DENIALS))
    lines.push(`  ${chalk.red('✗')} ${denialText(denial)}`);
  return lines;
}

/** One denial in words: what was refused, by what, and what tried. */
export function denialText(denial: ExecutorDenial): string {
  if (denial.kind === 'network') {
    const command = denial.command ? ` — ${inertText(denial.command.split('\n')[0] ?? '')}` : '';
    return `net ${inertText(denial.host)}:${denial.port} refused (${REASON_TEXT[denial.reason]})${command}`;
  }
  const by = denial.kind === 'policy' ? 'policy' : 'kernel';
  return `${by} ${inertText(denial.tool)}: ${inertText(denial.detail)}`;
}

/** Paths in short: the home as `~`, at most three, then how many more. */
function paths(list: readonly string[]): string {
  if (list.length === 0) return chalk.dim('nothing');
  const home = os.homedir();
  const short = list.map((dir) =>
    inertText(
      home !== '/' && (dir === home || dir.startsWith(`${home}/`)) ? `~${dir.slice(home.length)}` : dir,
    ),
  );
  const shown = short.slice(0, 3).join(', ');
  return list.length > 3 ? `${shown} ${chalk.dim(`+${list.length - 3}`)}` : shown;
}

function bytes(count: number): string {
  if (count >= 1024 * 1024) return `${Math.round((count / (1024 * 1024)) * 10) / 10} MiB`;
  if (count >= 1024) return `${Math.round(count / 1024)} KiB`;
  return `${count} B`;
}
