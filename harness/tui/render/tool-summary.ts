import { argsSummary, firstLine } from '../../emitters/args-summary.js';
import type { ToolBlock } from '../ui-state.js';

/** `edit_file(src/a.ts)`: the call as one short line. */
export function callLabel(block: Pick<ToolBlock, 'name' | 'args'>, maxArgChars = 60): string {
  return `${block.name}(${argsSummary(block.args, maxArgChars)})`;
}

/** What a finished call did, in a few words: `+3 −1`, `exit 1, 240 lines`, `lines 1–80 of 312`. */
export function resultSummary(block: ToolBlock): string {
  if (block.status === 'blocked') return `blocked: ${firstLine(block.blockedReason ?? '', 80)}`;
  if (block.status === 'cancelled') return 'cancelled';
  const result = block.result;
  if (!result) return '';
  const display = result.display;
  if (result.isError && display?.type !== 'command') return firstLine(result.output, 80) || 'failed';
  switch (display?.type) {
    case 'diff':
      return `${display.created ? 'created, ' : ''}+${display.additions} −${display.deletions}`;
    case 'command': {
      const lines = countLines(result.output);
      const end = display.timedOut
        ? 'timed out'
        : display.signal
          ? `killed by ${display.signal}`
          : `exit ${display.exitCode ?? '?'}`;
      return `${end}, ${lines} line${lines === 1 ? '' : 's'}`;
    }
    case 'file':
      return `lines ${display.startLine}–${display.endLine} of ${display.totalLines}`;
    case 'listing':
      return `${display.entries} entr${display.entries === 1 ? 'y' : 'ies'}${display.truncated ? '+' : ''}`;
    case 'matches':
      return `${display.matches} match${display.matches === 1 ? '' : 'es'} in ${display.files} file${display.files === 1 ? '' : 's'}`;
    case 'eval':
      return `${display.logs} log line${display.logs === 1 ? '' : 's'}, ${Math.round(display.durationMs)} ms`;
    default:
      return firstLine(result.output, 80) || 'done';
  }
}

export function countLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** `3s`, `1m05s`: elapsed time of a running call. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}
