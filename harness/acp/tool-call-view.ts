import path from 'node:path';
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { EngineEvent } from '../../shared/engine-events.js';
import { diffHunks } from './diff-hunks.js';

/** How much of a tool's output a tool call shows: the editor has the files, the model has the whole output. */
export const OUTPUT_PREVIEW_CHARS = 16_000;

type ToolResultEvent = Extract<EngineEvent, { type: 'tool_call_result' }>;

// Skate's tools by name; anything else (an executor's newer tools) is `other`.
const KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: 'read',
  list_dir: 'read',
  grep: 'search',
  glob: 'search',
  write_file: 'edit',
  edit_file: 'edit',
  shell: 'execute',
  js_eval: 'other',
  spawn_agent: 'think',
  ask_user: 'other',
  complete_task: 'other',
};

/** The ACP kind of a tool, which picks the editor's icon and treatment. */
export function toolKind(name: string): ToolKind {
  return KINDS[name] ?? 'other';
}

/** A short human title for a call, from its arguments. */
export function toolTitle(name: string, args: unknown): string {
  const field = (key: string): string | undefined => stringField(args, key);
  switch (name) {
    case 'read_file':
      return `Read ${field('path') ?? 'a file'}`;
    case 'write_file':
      return `Write ${field('path') ?? 'a file'}`;
    case 'edit_file':
      return `Edit ${field('path') ?? 'a file'}`;
    case 'list_dir':
      return `List ${field('path') ?? '.'}`;
    case 'grep':
      return `Search for \`${oneLine(field('pattern') ?? '')}\`${inPath(field('path'))}`;
    case 'glob':
      return `Find \`${oneLine(field('pattern') ?? '')}\`${inPath(field('path'))}`;
    case 'shell':
      return `Run \`${oneLine(field('command') ?? '')}\``;
    case 'js_eval':
      return 'Evaluate JavaScript';
    case 'spawn_agent':
      return `Sub-agent: ${oneLine(field('task') ?? '')}`;
    case 'ask_user':
      return 'Ask the user';
    default:
      return name;
  }
}

/** The files a call touches, absolute, so an editor can follow along. */
export function toolLocations(name: string, args: unknown, workspace: string): ToolCallLocation[] {
  if (!['read_file', 'write_file', 'edit_file', 'list_dir', 'grep', 'glob'].includes(name)) return [];
  const given = stringField(args, 'path') ?? '.';
  const location: ToolCallLocation = { path: path.resolve(workspace, given) };
  const offset = numberField(args, 'offset');
  if (name === 'read_file' && offset !== undefined) location.line = offset;
  return [location];
}

/** What a call shows before it runs (while it waits for approval, say): the change or the command. */
export function contentForCall(name: string, args: unknown, workspace: string): ToolCallContent[] {
  const file = stringField(args, 'path');
  if (name === 'edit_file' && file !== undefined) {
    const oldText = stringField(args, 'old_string') ?? '';
    return [
      {
        type: 'diff',
        path: path.resolve(workspace, file),
        oldText: oldText === '' ? null : oldText,
        newText: stringField(args, 'new_string') ?? '',
      },
    ];
  }
  // Whether write_file replaces a file is known only once it ran: show the text, not a diff against nothing.
  if (name === 'write_file') return textContent(fenced(capped(stringField(args, 'content') ?? '')));
  const command = stringField(args, 'command');
  if (name === 'shell' && command?.includes('\n')) return textContent(fenced(command, 'sh'));
  return [];
}

/** What a finished call shows: the diff of a file change, the output of a command, or the result text. */
export function contentForResult(event: ToolResultEvent, workspace: string): ToolCallContent[] {
  const display = event.display;
  if (!event.isError && display?.type === 'diff') {
    const file = path.resolve(workspace, display.path);
    const hunks = diffHunks(display.diff);
    if (hunks.length > 0) {
      return hunks.map((hunk) => ({
        type: 'diff',
        path: file,
        oldText: display.created ? null : hunk.oldText,
        newText: hunk.newText,
      }));
    }
  }
  if (event.output === '') return [];
  return textContent(fenced(capped(event.output)));
}

/** A running command's output so far, as a terminal-like block; `cut` when its beginning was dropped. */
export function contentForOutput(tail: string, cut: boolean): ToolCallContent[] {
  return textContent(fenced(cut ? `…\n${tail}` : tail));
}

function textContent(text: string): ToolCallContent[] {
  return [{ type: 'content', content: { type: 'text', text } }];
}

/** A Markdown code block whose fence no run of backticks in `text` can close. */
export function fenced(text: string, language = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}

/** `text`, cut to what a tool call shows. */
export function capped(text: string): string {
  if (text.length <= OUTPUT_PREVIEW_CHARS) return text;
  return `${text.slice(0, OUTPUT_PREVIEW_CHARS)}\n… (${text.length - OUTPUT_PREVIEW_CHARS} more characters)`;
}

function oneLine(text: string): string {
  const first = text.split('\n', 1)[0] ?? '';
  const short = first.length > 100 ? `${first.slice(0, 100)}…` : first;
  return first === text ? short : `${short} …`;
}

function inPath(given: string | undefined): string {
  return given && given !== '.' ? ` in ${given}` : '';
}

function stringField(args: unknown, key: string): string | undefined {
  const value =
    typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}

function numberField(args: unknown, key: string): number | undefined {
  const value =
    typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[key] : undefined;
  return typeof value === 'number' ? value : undefined;
}
