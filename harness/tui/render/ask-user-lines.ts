import chalk from 'chalk';

/**
 * The options of an ask_user question: a list with the cursor on one; for a
 * question that allows several answers, each with a box Space ticks.
 */
export function askUserChoiceLines(
  options: readonly string[],
  state: { choice: number; selected: readonly number[] },
  multiSelect: boolean,
): string[] {
  const lines = options.map((option, i) => {
    const box = multiSelect ? (state.selected.includes(i) ? '[x] ' : '[ ] ') : '';
    const text = `${i + 1}. ${box}${option}`;
    return i === state.choice ? chalk.cyan(`❯ ${text}`) : `  ${text}`;
  });
  const hint = multiSelect
    ? 'Space or a number ticks · Enter sends the ticked (none: the one at ❯) · Esc declines'
    : '↑↓/j/k Enter or a number · Esc declines';
  return [...lines, chalk.dim(hint)];
}
