import { argsSummary, firstLine } from '../../emitters/args-summary.js';
import { mcpToolParts, toolLabel } from '../../emitters/mcp-tool-label.js';
import { resultSummary as summaryLines } from '../../emitters/result-summary.js';
import type { ToolBlock } from '../ui-state.js';

/** `edit_file(src/a.ts)`, `fs · read_file(notes.md)` for an MCP tool: the call as one short line. */
export function callLabel(block: Pick<ToolBlock, 'name' | 'args'>, maxArgChars = 60): string {
  const anyString = mcpToolParts(block.name) !== undefined;
  return `${toolLabel(block.name)}(${argsSummary(block.args, maxArgChars, { anyString })})`;
}

/**
 * What a finished call did, in a few words: the first line of the one summary
 * (`emitters/result-summary.ts`) that text output and every view of a session
 * (live, resumed, forked, replayed) share; blocked and cancelled are the UI's own states.
 */
export function resultSummary(block: ToolBlock): string {
  if (block.status === 'blocked') return `blocked: ${firstLine(block.blockedReason ?? '', 80)}`;
  if (block.status === 'cancelled') return 'cancelled';
  const result = block.result;
  if (!result) return '';
  return summaryLines({ name: block.name, ...result })[0] ?? '';
}

/** `3s`, `1m05s`: elapsed time of a running call. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}
