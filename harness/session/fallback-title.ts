/** Characters a session title is cut to, in the list and the picker. */
export const TITLE_CHARS = 60;

/**
 * A session's title when none was recorded (a headless run, an older
 * session, a failed title request): the first non-empty line of its first
 * prompt, whitespace collapsed, cut to `TITLE_CHARS`.
 */
export function fallbackTitle(prompt: string): string {
  const line = prompt.split('\n').find((each) => each.trim() !== '') ?? '';
  const text = line.replace(/\s+/g, ' ').trim();
  return text.length <= TITLE_CHARS ? text : `${text.slice(0, TITLE_CHARS - 1)}…`;
}
