import type { EngineEvent } from '../../shared/engine-events.js';
import { inertValue } from '../terminal/inert-value.js';

type ToolCallResult = Extract<EngineEvent, { type: 'tool_call_result' }>;

const MAX_LINES = 3;
const MAX_CHARS = 100;

/**
 * A few readable lines for one tool result in `--output-format text`: what a person at a terminal
 * wants to know at a glance. A write or edit shows its diff stat, a command its exit code and its
 * output (its first and last lines when long), a sub-agent its status and summary, a failure its first lines. Never the whole output.
 */
export function resultSummary(event: ToolCallResult): string[] {
  const display = event.display;
  if (event.name === 'spawn_agent') return subAgentSummary(event.output, event.isError);
  // A failed command still says most through its exit code and last lines.
  if (!display || (event.isError && display.type !== 'command'))
    return clipped(nonBlank(event.output), 'head');
  switch (display.type) {
    case 'diff': {
      const stat = `+${display.additions} −${display.deletions}`;
      return [`${display.created ? 'created' : 'changed'} ${display.path} (${stat})`];
    }
    case 'file': {
      const cut = display.truncated ? ', more follows' : '';
      return [
        `${display.path}: lines ${display.startLine}–${display.endLine} of ${display.totalLines}${cut}`,
      ];
    }
    case 'listing':
      return [`${display.path}: ${display.entries} entries${display.truncated ? ' (cut short)' : ''}`];
    case 'matches':
      return [
        `${display.matches} match${display.matches === 1 ? '' : 'es'} in ${display.files} file${display.files === 1 ? '' : 's'}${display.truncated ? ' (cut short)' : ''}`,
      ];
    case 'command': {
      const how =
        display.exitCode !== null ? `exit ${display.exitCode}` : `killed by ${display.signal ?? 'a signal'}`;
      // The output ends with the shell tool's own status line; the lines before it say most.
      const body = nonBlank(event.output).filter((line) => !/^\[(exit code|killed)/.test(line));
      return [`${how} · ${seconds(display.durationMs)}`, ...headAndTail(body)];
    }
    case 'eval':
      return [
        `ran in ${seconds(display.durationMs)} · ${display.logs} log lines`,
        ...clipped(nonBlank(event.output), 'head'),
      ];
  }
}

/**
 * A sub-agent's result is JSON for the model; a person wants its status and summary. The JSON's
 * `\u001b` escapes are inert in the output and raw once parsed: what is parsed is made inert again.
 */
function subAgentSummary(output: string, isError: boolean): string[] {
  if (isError) return clipped(nonBlank(output), 'head').slice(0, 1);
  try {
    const parsed = inertValue(JSON.parse(output)) as {
      agent_id?: string;
      result?: { status?: string; summary?: string; files_changed?: unknown[]; issues?: unknown[] };
    };
    const result = parsed.result ?? {};
    const extra = [
      ...(Array.isArray(result.files_changed) && result.files_changed.length > 0
        ? [`${result.files_changed.length} files changed`]
        : []),
      ...(Array.isArray(result.issues) ? [`${result.issues.length} issues`] : []),
    ];
    const head = `${parsed.agent_id ?? 'sub-agent'} ${result.status ?? 'finished'}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`;
    return [head, ...clipped(nonBlank(result.summary ?? ''), 'head')];
  } catch {
    return clipped(nonBlank(output), 'head');
  }
}

function nonBlank(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** At most MAX_LINES lines, each clipped, from the head or the tail, saying how many were left out. */
function clipped(lines: string[], from: 'head' | 'tail'): string[] {
  const clip = (line: string): string =>
    line.length <= MAX_CHARS ? line : `${line.slice(0, MAX_CHARS - 1)}…`;
  if (lines.length <= MAX_LINES) return lines.map(clip);
  const more = `… ${lines.length - MAX_LINES} more lines`;
  return from === 'head'
    ? [...lines.slice(0, MAX_LINES).map(clip), more]
    : [more, ...lines.slice(-MAX_LINES).map(clip)];
}

/** A command's output shown whole up to this many lines; past it, its head and tail. */
const MAX_WHOLE_LINES = 8;
const HEAD_LINES = 2;

/**
 * A command's output: whole when short, else its first and last lines (the line that mattered is
 * often the first error, or the last summary), saying how many were left out and where they are.
 */
function headAndTail(lines: string[]): string[] {
  const clip = (line: string): string =>
    line.length <= MAX_CHARS ? line : `${line.slice(0, MAX_CHARS - 1)}…`;
  if (lines.length <= MAX_WHOLE_LINES) return lines.map(clip);
  const left = lines.length - HEAD_LINES - MAX_LINES;
  return [
    ...lines.slice(0, HEAD_LINES).map(clip),
    `… ${left} more lines (all of them: --output-format stream-json)`,
    ...lines.slice(-MAX_LINES).map(clip),
  ];
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
