import type { ToolDisplay } from '../../shared/tool.js';
import { inertValue } from '../terminal/inert-value.js';
import { mcpToolParts } from './mcp-tool-label.js';

/**
 * A finished call as every view of it has it: live (a `tool_call_result`
 * event) or rebuilt from the session log (a `tool_result` block, which keeps
 * the display). Fed the same data, the summary is the same.
 */
export interface ToolOutcome {
  name: string;
  output: string;
  isError: boolean;
  display?: ToolDisplay | undefined;
}

const MAX_LINES = 3;
const MAX_CHARS = 100;

/**
 * What a finished call did, for a person: the first line is a few words (`+3 −1`,
 * `exit 0 · 6 lines · 0.4 s`, `lines 1–80 of 312`, `answered: Yes`, a sub-agent's
 * `completed · 3 tool calls · 1.9k tokens · 12 s`), the one line the terminal UI
 * shows after the call; the lines after it are what `--output-format text` prints under it
 * (a command's output whole when short, else its first and last lines). Never the whole output, never raw JSON.
 * The one summary of a call: live, resumed, forked or replayed.
 */
export function resultSummary(outcome: ToolOutcome): string[] {
  const { display } = outcome;
  if (outcome.name === 'spawn_agent') return subAgentSummary(outcome.output, outcome.isError);
  if (outcome.name === 'ask_user') return askUserSummary(outcome.output, outcome.isError);
  if (!display && !outcome.isError && mcpToolParts(outcome.name)) return mcpSummary(outcome.output);
  // A failed command still says most through its exit code and last lines.
  if (!display || (outcome.isError && display.type !== 'command')) {
    const lines = nonBlank(outcome.output);
    return lines.length === 0 ? ['(no output)'] : clipped(lines, 'head');
  }
  switch (display.type) {
    case 'diff':
      return [`${display.created ? 'created · ' : ''}+${display.additions} −${display.deletions}`];
    case 'file':
      return [
        `lines ${display.startLine}–${display.endLine} of ${display.totalLines}${display.truncated ? ' (more follows)' : ''}`,
      ];
    case 'listing':
      return [`${plural(display.entries, 'entry', 'entries')}${display.truncated ? ' (cut short)' : ''}`];
    case 'matches':
      return [
        `${plural(display.matches, 'match', 'matches')} in ${plural(display.files, 'file')}${display.truncated ? ' (cut short)' : ''}`,
      ];
    case 'command': {
      const how = display.timedOut
        ? 'timed out'
        : display.exitCode !== null
          ? `exit ${display.exitCode}`
          : `killed by ${display.signal ?? 'a signal'}`;
      // The output ends with the shell tool's own status line; the lines before it say most.
      const body = nonBlank(outcome.output).filter((line) => !/^\[(exit code|killed|timed out)/.test(line));
      return [
        `${how} · ${plural(body.length, 'line')} · ${seconds(display.durationMs)}`,
        ...headAndTail(body),
      ];
    }
    case 'eval':
      return [
        `${plural(display.logs, 'log line')} · ${seconds(display.durationMs)}`,
        ...clipped(nonBlank(outcome.output), 'head'),
      ];
  }
}

/**
 * A sub-agent's result is JSON for the model; a person wants its status, its
 * work (tool calls, tokens, time) and its summary. The JSON's `\u001b` escapes
 * are inert in the output and raw once parsed: what is parsed is made inert again.
 */
function subAgentSummary(output: string, isError: boolean): string[] {
  if (isError) return [clip(nonBlank(output)[0] ?? 'failed')];
  try {
    const parsed = inertValue(JSON.parse(output)) as {
      usage?: Record<string, unknown>;
      result?: { status?: unknown; summary?: unknown; files_changed?: unknown; issues?: unknown };
    };
    const result = parsed.result ?? {};
    const usage = parsed.usage ?? {};
    const count = (key: string): number => (typeof usage[key] === 'number' ? (usage[key] as number) : 0);
    const tokens =
      count('input_tokens') +
      count('output_tokens') +
      count('cache_read_tokens') +
      count('cache_write_tokens');
    const head = [
      typeof result.status === 'string' ? result.status : 'finished',
      plural(count('tool_calls'), 'tool call'),
      `${compactCount(tokens)} tokens`,
      ...(typeof usage.duration_ms === 'number' ? [seconds(usage.duration_ms)] : []),
      ...(Array.isArray(result.files_changed) && result.files_changed.length > 0
        ? [plural(result.files_changed.length, 'file') + ' changed']
        : []),
      ...(Array.isArray(result.issues) && result.issues.length > 0
        ? [plural(result.issues.length, 'issue')]
        : []),
    ].join(' · ');
    const summary = typeof result.summary === 'string' ? result.summary : '';
    return [head, ...clipped(nonBlank(summary), 'head')];
  } catch {
    return [clip(nonBlank(output)[0] ?? 'finished')];
  }
}

/** `The user answered:\n\nQ: …\nA: …` (ask-user-tool.ts) as the answers chosen. */
function askUserSummary(output: string, isError: boolean): string[] {
  if (isError) return [/^No answer came/.test(output) ? 'no answer' : clip(nonBlank(output)[0] ?? 'failed')];
  const answers = output
    .split('\n')
    .filter((line) => line.startsWith('A: '))
    .map((line) => line.slice(3).trim());
  if (answers.length === 0) return [clip(nonBlank(output)[0] ?? 'answered')];
  return [clip(`answered: ${answers.join(' · ')}`)];
}

/**
 * An MCP tool's result is the server's text, often JSON: a person gets its shape (`3 items`,
 * `{id, title, state}`), not the raw JSON; other text as any output. Parsed keys are made inert again.
 */
function mcpSummary(output: string): string[] {
  const trimmed = output.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(trimmed);
      if (Array.isArray(value)) return [`JSON · ${plural(value.length, 'item')}`];
      if (value !== null && typeof value === 'object') {
        const keys = Object.keys(value).map((key) => inertValue(key).replace(/\s+/g, ' '));
        return [clip(`JSON · {${keys.slice(0, 6).join(', ')}${keys.length > 6 ? ', …' : ''}}`)];
      }
    } catch {
      // Not JSON after all: summarised as text.
    }
  }
  const lines = nonBlank(output);
  if (lines.length === 0) return ['(no output)'];
  const [first = ''] = clipped(lines, 'head');
  return [lines.length > 1 ? `${plural(lines.length, 'line')} · ${first}` : first];
}

function nonBlank(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

function clip(line: string): string {
  return line.length <= MAX_CHARS ? line : `${line.slice(0, MAX_CHARS - 1)}…`;
}

/** At most MAX_LINES lines, each clipped, from the head or the tail, saying how many were left out. */
function clipped(lines: string[], from: 'head' | 'tail'): string[] {
  if (lines.length <= MAX_LINES) return lines.map(clip);
  const more = `… ${lines.length - MAX_LINES} more lines`;
  return from === 'head'
    ? [...lines.slice(0, MAX_LINES).map(clip), more]
    : [more, ...lines.slice(-MAX_LINES).map(clip)];
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** `950`, `1.9k`, `19k`, `1.2M`: a token count at a glance. */
export function compactCount(count: number): string {
  if (count < 1000) return String(count);
  if (count < 10_000) return `${(count / 1000).toFixed(1)}k`;
  if (count < 1_000_000) return `${Math.round(count / 1000)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A command's output shown whole up to this many lines; past it, its head and tail. */
const MAX_WHOLE_LINES = 8;
const HEAD_LINES = 2;

/**
 * A command's output: whole when short, else its first and last lines (the line that mattered is
 * often the first error, or the last summary), saying how many were left out and where they are.
 */
function headAndTail(lines: string[]): string[] {
  if (lines.length <= MAX_WHOLE_LINES) return lines.map(clip);
  const left = lines.length - HEAD_LINES - MAX_LINES;
  return [
    ...lines.slice(0, HEAD_LINES).map(clip),
    `… ${left} more lines (all of them: --output-format stream-json)`,
    ...lines.slice(-MAX_LINES).map(clip),
  ];
}
