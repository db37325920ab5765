import chalk from 'chalk';
import stringWidth from 'string-width';
import type { UiState } from '../ui-state.js';
import { wrapLines } from './block-lines.js';

/** Why each approval mode is what it is, in the words the first screen uses. */
const APPROVAL_WHY: Record<UiState['approval'], string> = {
  auto: 'tools run without asking; the sandbox is the gate',
  ask: 'each write or command waits for your yes',
  'deny-writes': 'writes and commands are refused',
};

/**
 * The first screen, before anything is said: what the agent works on and
 * under (workspace, model, policy, approval mode and why, network) and two
 * tips, as peers show; the conversation replaces it. Each row's hint (how to
 * change it) is left out where the row would not fit.
 */
export function welcomeLines(state: UiState, width: number): string[] {
  const row = (name: string, value: string, hint: string): string => {
    const plain = `${chalk.dim(name.padEnd(10))}${value}`;
    const hinted = `${plain}${chalk.dim(`  (${hint})`)}`;
    return stringWidth(hinted) <= width ? hinted : plain;
  };
  const about = state.about;
  const rows: string[] = [
    chalk.bold('Skate') + chalk.dim(' · a coding agent whose tools run in a sandbox'),
    '',
    ...(about ? [row('workspace', about.workspace, 'skate --workspace DIR')] : []),
    row('model', state.model, ':model NAME'),
    ...(about ? [row('policy', about.policy ?? 'chosen by the remote executor', ':policy shows it')] : []),
    row('approval', `${state.approval}: ${APPROVAL_WHY[state.approval]}`, 'Space m'),
    row('network', state.network === 'unknown' ? '…' : state.network, 'Space n toggles it'),
    '',
    chalk.dim('Type a task, Enter sends it · Esc then Space: the chords · :help: commands'),
    chalk.dim('Ctrl-C interrupts a turn · :q quits and says how to resume the session'),
  ];
  return rows.flatMap((line) => (line === '' ? [''] : wrapLines(line, width)));
}
