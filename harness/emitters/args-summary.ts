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
  // complete_task: a sub-agent's summary of what it did.
  'summary',
];

/**
 * A one-line gist of a tool call's arguments for a compact display: the most
 * telling argument's value, else the arguments as compact JSON, clipped.
 */
export function argsSummary(args: unknown, maxChars = 80, options: { anyString?: boolean } = {}): string {
  if (args === null || args === undefined) return '';
  if (typeof args !== 'object') return clipLine(String(args), maxChars);
  const record = args as Record<string, unknown>;
  const question = firstQuestion(record);
  if (question !== undefined) return clipLine(question, maxChars);
  for (const key of SALIENT_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return clipLine(value, maxChars);
  }
  // An MCP tool's arguments have names of its server's choosing: its first text says most.
  if (options.anyString) {
    const text = Object.values(record).find((value) => typeof value === 'string' && value !== '');
    if (typeof text === 'string') return clipLine(text, maxChars);
  }
  const json = JSON.stringify(args);
  return json === '{}' ? '' : clipLine(json ?? '', maxChars);
}

/** ask_user's arguments say most through their first question (and how many follow). */
function firstQuestion(record: Record<string, unknown>): string | undefined {
  const questions = record.questions;
  if (!Array.isArray(questions) || questions.length === 0) return undefined;
  const first = (questions[0] as { question?: unknown } | null)?.question;
  if (typeof first !== 'string' || first === '') return undefined;
  return questions.length > 1 ? `${first} (+${questions.length - 1} more)` : first;
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
