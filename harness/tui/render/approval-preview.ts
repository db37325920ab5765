import chalk from 'chalk';
import { structuredPatch } from 'diff';
import { wrapLines } from './block-lines.js';

const MAX_PREVIEW_LINES = 30;

/** What an approval would let happen, from the call's arguments: the edit as a diff, the file to write, the command. */
export function approvalPreview(args: unknown, width: number): string[] {
  const record = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
  const lines: string[] = [];
  const push = (text: string, paint: (line: string) => string = (line) => line): void => {
    for (const line of text.split('\n')) for (const part of wrapLines(line, width)) lines.push(paint(part));
  };
  if (typeof record.command === 'string') {
    push(`$ ${record.command}`, chalk.bold);
  } else if (typeof record.old_string === 'string' && typeof record.new_string === 'string') {
    const path = String(record.path ?? '');
    push(`${path}`, chalk.bold);
    const patch = structuredPatch(path, path, record.old_string, record.new_string, '', '', { context: 2 });
    for (const hunk of patch.hunks) {
      for (const line of hunk.lines) {
        if (line.startsWith('\\')) continue; // "\ No newline at end of file" says nothing here
        push(line, line.startsWith('+') ? chalk.green : line.startsWith('-') ? chalk.red : undefined);
      }
    }
  } else if (typeof record.content === 'string') {
    push(`${String(record.path ?? '')} (whole file)`, chalk.bold);
    push(record.content.replace(/\n$/, '').replace(/^/gm, '+'), chalk.green);
  } else {
    push(JSON.stringify(args, null, 2) ?? '', chalk.dim);
  }
  if (lines.length <= MAX_PREVIEW_LINES) return lines;
  return [
    ...lines.slice(0, MAX_PREVIEW_LINES),
    chalk.dim(`… ${lines.length - MAX_PREVIEW_LINES} more lines`),
  ];
}
