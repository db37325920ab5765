/** Argument names that say most about a call, in the order they are preferred. */
const SALIENT_KEYS = [
  'command',
  'path',
  'file_path',
  'pattern',
  'query',
  'url',
  'code',
  'prompt',
  'description',
  // spawn_agent: its task says what the sub-agent is for, where its JSON would show write_paths first.
  'task',
];

/**
 * A one-line gist of a tool call's arguments for a compact display: the most
 * telling argument's value, else the arguments as compact JSON, clipped.
 */
export function argsSummary(args: unknown, maxChars = 80): string {
  if (args === null || args === undefined) return '';
  if (typeof args !== 'object') return clipLine(String(args), maxChars);
  const record = args as Record<string, unknown>;
  for (const key of SALIENT_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return clipLine(value, maxChars);
  }
  const json = JSON.stringify(args);
  return json === '{}' ? '' : clipLine(json ?? '', maxChars);
}

/** The first non-blank line of a text, clipped: what a one-line result display shows. */
export function firstLine(text: string, maxChars = 100): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return clipLine(line, maxChars);
}

function clipLine(text: string, maxChars: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ').trim();
  return flat.length <= maxChars ? flat : `${flat.slice(0, maxChars - 1)}…`;
}
