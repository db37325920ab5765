import chalk from 'chalk';
import wrapAnsi from 'wrap-ansi';
import type { Block, ToolBlock } from '../ui-state.js';
import { markdownLines } from './markdown-lines.js';
import { callLabel, formatElapsed, resultSummary } from './tool-summary.js';

export interface BlockRenderOptions {
  /** Columns for the block's text (the viewport's focus gutter is not included). */
  width: number;
  expanded: boolean;
  /** For a running call's elapsed time and spinner. */
  now: number;
  /** Renders a reply's Markdown; a streaming reply's is incremental (same lines as `markdownLines`). */
  markdown?: (text: string, width: number) => string[];
}

const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';

/** Wraps text (ANSI kept) to the width, hard-breaking words longer than a line. */
export function wrapLines(text: string, width: number): string[] {
  return wrapAnsi(text, Math.max(1, width), { hard: true, trim: false }).split('\n');
}

/** One line (ANSI kept) cut to the width, ending in an ellipsis when something was cut. */
export function cutLine(text: string, width: number): string {
  const lines = wrapAnsi(text, Math.max(1, width), { hard: true, wordWrap: false, trim: false }).split('\n');
  if (lines.length === 1) return lines[0]!;
  const shorter = wrapAnsi(text, Math.max(1, width - 1), { hard: true, wordWrap: false, trim: false });
  return `${shorter.slice(0, shorter.indexOf('\n'))}…`;
}

/** A block as terminal lines: what the viewport shows and caches. */
export function renderBlockLines(block: Block, options: BlockRenderOptions): string[] {
  const { width } = options;
  switch (block.kind) {
    case 'user':
      // A blank line after the person's and the model's words; tool lines stay together.
      return [
        ...wrapLines(block.text, width - 2).map(
          (line, i) => chalk.bold.cyan(i === 0 ? '› ' : '  ') + chalk.bold(line),
        ),
        '',
      ];
    case 'assistant':
      return block.text === '' ? [] : [...(options.markdown ?? markdownLines)(block.text, width), ''];
    case 'thinking': {
      const words = block.text.trim() === '' ? 0 : block.text.trim().split(/\s+/).length;
      const head = chalk.dim(
        `${options.expanded ? '▾' : '▸'} thinking${block.streaming ? '…' : ''} (${words} words)`,
      );
      if (!options.expanded) return [head];
      return [head, ...wrapLines(block.text, width - 2).map((line) => chalk.dim.italic(`  ${line}`))];
    }
    case 'notice': {
      if (block.level === 'interrupted') return [chalk.yellow(`■ ${block.text}`), ''];
      const paint =
        block.level === 'error'
          ? chalk.red
          : block.level === 'warn'
            ? chalk.yellow
            : (text: string) => chalk.dim(text);
      const prefix = block.level === 'error' ? 'error: ' : block.level === 'warn' ? 'warning: ' : '· ';
      return wrapLines(prefix + block.text, width).map((line) => paint(line));
    }
    case 'tool':
      return toolLines(block, options);
  }
}

function toolLines(block: ToolBlock, options: BlockRenderOptions): string[] {
  const { width, expanded, now } = options;
  const running = block.status === 'running';
  const marker = running
    ? chalk.yellow(SPINNER[Math.floor(now / 100) % SPINNER.length]!)
    : expanded
      ? '▾'
      : '▸';
  const summary = running
    ? chalk.yellow(`running ${formatElapsed(now - block.startedAt)}`) +
      (block.progress ? chalk.dim(` · ${block.progress}`) : '')
    : paintSummary(block, resultSummary(block));
  const head = `${marker} ${chalk.bold(callLabel(block))}${summary ? ` — ${summary}` : ''}`;
  const headLine = cutLine(head, width);
  if (!expanded) return [headLine];
  return [headLine, ...toolBody(block, width - 2).map((line) => `  ${line}`)];
}

function paintSummary(block: ToolBlock, summary: string): string {
  if (block.status === 'error' || block.status === 'blocked') return chalk.red(summary);
  if (block.status === 'cancelled') return chalk.yellow(summary);
  if (block.result?.display?.type === 'command' && block.result.display.exitCode !== 0)
    return chalk.red(summary);
  return chalk.dim(summary);
}

/** The expanded body: a coloured diff for edits, the command's output for shell, numbered lines for reads. */
function toolBody(block: ToolBlock, width: number): string[] {
  const args = (typeof block.args === 'object' && block.args !== null ? block.args : {}) as Record<
    string,
    unknown
  >;
  const display = block.result?.display;
  const lines: string[] = [];
  const wrapAll = (text: string, paint: (line: string) => string = (line) => line): void => {
    for (const line of text.split('\n')) for (const part of wrapLines(line, width)) lines.push(paint(part));
  };
  if (block.name === 'shell' && typeof args.command === 'string') {
    wrapAll(`$ ${args.command}`, chalk.bold);
    if (block.result) wrapAll(trimEnd(block.result.output), block.result.isError ? chalk.red : undefined);
    else for (const line of block.streamed) wrapAll(line);
    if (!block.result && block.streamedCount > block.streamed.length) {
      lines.splice(1, 0, chalk.dim(`… ${block.streamedCount - block.streamed.length} earlier lines`));
    }
    return lines;
  }
  if (display?.type === 'diff') {
    for (const line of display.diff.split('\n'))
      lines.push(...wrapLines(line, width).map((part) => paintDiff(line, part)));
    return lines;
  }
  if (block.name === 'read_file' && block.result && !block.result.isError) {
    for (const line of trimEnd(block.result.output).split('\n')) {
      const match = /^(\s*\d+)\t(.*)$/.exec(line);
      if (!match) {
        wrapAll(line);
        continue;
      }
      const [, number, text] = match;
      const gutter = number!.length + 1;
      wrapLines(text!, width - gutter).forEach((part, i) => {
        lines.push(`${chalk.dim(i === 0 ? number! : ' '.repeat(number!.length))} ${part}`);
      });
    }
    return lines;
  }
  wrapAll(JSON.stringify(block.args, null, 2) ?? '', chalk.dim);
  if (block.blockedReason) wrapAll(block.blockedReason, chalk.red);
  if (block.result) wrapAll(trimEnd(block.result.output), block.result.isError ? chalk.red : undefined);
  else for (const line of block.streamed) wrapAll(line);
  return lines;
}

function paintDiff(line: string, part: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return chalk.bold(part);
  if (line.startsWith('+')) return chalk.green(part);
  if (line.startsWith('-')) return chalk.red(part);
  if (line.startsWith('@@')) return chalk.cyan(part);
  return part;
}

function trimEnd(text: string): string {
  return text.replace(/\n+$/, '');
}
