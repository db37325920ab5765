import chalk from 'chalk';
import stringWidth from 'string-width';
import { inertText } from '../../terminal/inert-text.js';
import { APPROVAL_CHOICES, LOOP_CHOICES } from '../answer-pending.js';
import { LEADER_CHORDS } from '../leader-chords.js';
import { slashCandidates } from '../slash-completion.js';
import { COMMAND_HELP } from '../ui-command.js';
import { messageRoom, whichKeyVisible } from '../ui-reducer.js';
import type { UiState } from '../ui-state.js';
import { approvalPreview } from './approval-preview.js';
import { askUserChoiceLines } from './ask-user-lines.js';
import { cutLine, wrapLines } from './block-lines.js';
import { executorPanelLines } from './executor-panel-lines.js';
import { sessionPickerLines } from './session-picker-lines.js';
import { callLabel } from './tool-summary.js';

/** At most this many rows of a long prompt are shown while it is typed. */
const MAX_PROMPT_ROWS = 8;

const rule = (width: number): string => chalk.dim('─'.repeat(Math.max(0, width)));

/** The prompt under the conversation: the text being typed, the `:` line, or a hint in NORMAL. */
export function promptLines(state: UiState, width: number): string[] {
  // Keys answer the question while one waits: a second `›` would say they type a prompt.
  if (state.pending.length > 0) return [];
  // What is being typed may be a paste: shown inert, sent as it is.
  if (state.mode === 'command') return [rule(width), `:${inertText(state.commandLine)}${chalk.inverse(' ')}`];
  if (state.replay) {
    return [
      rule(width),
      chalk.dim(
        `read-only replay of ${state.replay.agent} · [ ] focus · Enter expand · j/k scroll · Esc back`,
      ),
    ];
  }
  if (state.mode === 'normal') {
    return [
      rule(width),
      chalk.dim('i type · [ ] focus · Enter expand · j/k scroll · Space chords · : commands'),
    ];
  }
  const { text, cursor } = state.input;
  const at = text[cursor];
  const withCursor = `${inertText(text.slice(0, cursor))}${chalk.inverse(at === undefined || at === '\n' ? ' ' : inertText(at))}${at === '\n' ? '\n' : ''}${inertText(text.slice(cursor + 1))}`;
  const lines = withCursor
    .split('\n')
    .flatMap((line) => wrapLines(line, width - 2))
    .map((line, i) => `${i === 0 ? chalk.cyan('› ') : '  '}${line}`);
  return [rule(width), ...lines.slice(-MAX_PROMPT_ROWS), ...slashCompletionLines(state, width)];
}

/** Commands shown under a prompt starting with `/`; past this, a count of the others. */
const MAX_COMPLETIONS = 6;

/** Under a `/` prompt: the commands it may become (name, arguments, what it does), or the arguments of the one typed. */
function slashCompletionLines(state: UiState, width: number): string[] {
  const { typing, commands } = slashCandidates(state);
  if (commands.length === 0) return [];
  const lines = commands.slice(0, MAX_COMPLETIONS).map((command) => {
    const head = `/${command.name}${command.hint ? ` ${command.hint}` : ''}`;
    const about = command.description.replace(/\s+/g, ' ').trim();
    return cutLine(`  ${chalk.cyan(head)}${about ? chalk.dim(`  ${about}`) : ''}`, width);
  });
  if (commands.length > MAX_COMPLETIONS)
    lines.push(chalk.dim(`  … ${commands.length - MAX_COMPLETIONS} more`));
  if (typing) lines.push(chalk.dim('  Tab completes'));
  return lines;
}

/** The question the engine waits on, shown above the prompt so it cannot be missed. */
export function pendingLines(state: UiState, width: number): string[] {
  const current = state.pending[0];
  if (!current) return [];
  const more = state.pending.length > 1 ? chalk.dim(` (+${state.pending.length - 1} more waiting)`) : '';
  const list = (choices: readonly string[], selected: number): string[] =>
    choices.map((choice, i) =>
      i === selected ? chalk.cyan(`❯ ${i + 1}. ${choice}`) : `  ${i + 1}. ${choice}`,
    );
  switch (current.type) {
    case 'approval': {
      const lines = [
        rule(width),
        chalk.yellow.bold(`? allow ${current.effect === 'write' ? 'this change' : 'this command'}: `) +
          chalk.bold(callLabel(current)) +
          more,
        ...approvalPreview(current.args, width - 2).map((line) => `  ${line}`),
      ];
      if (current.feedback !== undefined) {
        return [
          ...lines,
          `${chalk.cyan('reason for rejecting › ')}${inertText(current.feedback)}${chalk.inverse(' ')}`,
          chalk.dim('Enter rejects with this reason · Esc back to the choices'),
        ];
      }
      const choices = APPROVAL_CHOICES.map((choice, i) =>
        i === 3 ? `approve all ${current.name} calls this session` : choice,
      );
      return [
        ...lines,
        ...list(choices, current.choice),
        chalk.dim('y approve · n reject · ↑↓ Enter or 1-4'),
      ];
    }
    case 'ask_user': {
      const question = current.questions[current.index];
      const counter =
        current.questions.length > 1 ? chalk.dim(` (${current.index + 1}/${current.questions.length})`) : '';
      const lines = [
        rule(width),
        ...wrapLines(chalk.yellow.bold(`? ${question?.question ?? ''}`), width).map((line, i) =>
          i === 0 ? line + counter + more : line,
        ),
      ];
      const options = question?.options ?? [];
      if (options.length === 0) {
        return [
          ...lines,
          `${chalk.cyan('› ')}${inertText(current.text)}${chalk.inverse(' ')}`,
          chalk.dim('Enter answers · Esc declines'),
        ];
      }
      return [...lines, ...askUserChoiceLines(options, current, question?.multiSelect === true)];
    }
    case 'loop_cap':
      return [
        rule(width),
        chalk.yellow.bold(`? the agent has run ${current.iterations} turns: continue?`) + more,
        ...list(LOOP_CHOICES, current.choice),
        chalk.dim('↑↓ Enter or 1-2'),
      ];
  }
}

/** The overlay's lines (which-key, help, a message), drawn over the conversation's bottom rows. */
export function overlayLines(state: UiState, width: number): string[] {
  const box = (title: string, body: string[]): string[] => [
    chalk.dim('┌ ') +
      chalk.bold(title) +
      chalk.dim(` ${'─'.repeat(Math.max(0, width - stringWidth(title) - 4))}┐`),
    ...body
      .flatMap((line) => wrapLines(line, width - 4))
      .map(
        (line) =>
          `${chalk.dim('│')} ${line}${' '.repeat(Math.max(0, width - 4 - stringWidth(line)))} ${chalk.dim('│')}`,
      ),
    chalk.dim(`└${'─'.repeat(Math.max(0, width - 2))}┘`),
  ];
  if (whichKeyVisible(state)) {
    return box(
      'Space …',
      LEADER_CHORDS.map((chord) => `${chalk.cyan.bold(chord.key)}  ${chord.label}`),
    );
  }
  switch (state.overlay?.type) {
    case undefined:
    case 'which_key':
      return [];
    case 'help':
      return box('commands (any key closes)', [
        ...COMMAND_HELP.map(([command, what]) => `${chalk.cyan(command.padEnd(16))}${what}`),
        chalk.dim('/clear /model /compact /resume /help work at the start of a prompt too'),
      ]);
    case 'message': {
      const { lines, title } = state.overlay;
      const room = messageRoom(state.size.rows);
      if (lines.length <= room) return box(title, lines);
      const top = Math.min(state.overlay.top ?? 0, lines.length - room);
      const shown = lines.slice(top, top + room).map((line) => cutLine(line, width - 4));
      const where = `lines ${top + 1}–${top + shown.length} of ${lines.length} · j/k Ctrl-d/u g/G scroll · any other key closes`;
      return box(title, [...shown, chalk.dim(where)]);
    }
    case 'sessions':
      return box(
        'sessions, newest first',
        sessionPickerLines(state.overlay.sessions, state.overlay.selected, state.now, width - 4),
      );
    case 'agent_tree':
      // A side panel beside the conversation (agent-tree-lines.ts), not rows under it.
      return [];
    case 'executors': {
      const lines = executorPanelLines(state.executors, state.now, width - 4);
      const room = messageRoom(state.size.rows);
      if (lines.length <= room) return box('executors', lines);
      const top = Math.min(state.overlay.top, lines.length - room);
      const where = `lines ${top + 1}–${top + room} of ${lines.length} · j/k Ctrl-d/u g/G scroll · Esc/q closes`;
      return box('executors', [...lines.slice(top, top + room), chalk.dim(cutLine(where, width - 4))]);
    }
  }
}
