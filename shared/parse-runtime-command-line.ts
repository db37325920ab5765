import type { RuntimeCommand } from './runtime-command.js';

/** A runtime command a person types by name, with what it does and the argument it takes. */
export interface RuntimeCommandLine {
  name: 'clear' | 'compact' | 'model' | 'resume';
  description: string;
  /** What the argument is, for commands that take one. */
  argument?: string;
}

/**
 * The runtime commands a person can type (`model NAME`, after `:` or `/`),
 * the same in every frontend; each frontend offers those that fit it.
 */
export const RUNTIME_COMMAND_LINES: readonly RuntimeCommandLine[] = [
  { name: 'clear', description: 'new conversation (the old session stays on disk)' },
  { name: 'compact', description: 'summarise the older conversation now' },
  { name: 'model', description: 'the model of the next turns', argument: 'a model name' },
  { name: 'resume', description: 'continue another session of the workspace', argument: 'a session id' },
];

export type ParsedRuntimeCommand = { ok: true; command: RuntimeCommand } | { ok: false; error: string };

/**
 * Parses one typed runtime command: its name and the rest of the line. An
 * error says what is wrong after the command's name (`needs a model name`);
 * undefined when `name` is no runtime command.
 */
export function parseRuntimeCommandLine(name: string, arg: string): ParsedRuntimeCommand | undefined {
  const line = RUNTIME_COMMAND_LINES.find((command) => command.name === name);
  if (!line) return undefined;
  const value = arg.trim();
  if (line.argument && value === '') return { ok: false, error: `needs ${line.argument}` };
  if (!line.argument && value !== '') return { ok: false, error: 'takes no argument' };
  switch (line.name) {
    case 'clear':
      return { ok: true, command: { type: 'clear' } };
    case 'compact':
      return { ok: true, command: { type: 'compact' } };
    case 'model':
      return { ok: true, command: { type: 'set_model', model: value } };
    case 'resume':
      return { ok: true, command: { type: 'resume', sessionId: value } };
  }
}
