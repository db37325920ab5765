/**
 * Shortens text that may quote an input (a path, a key, a command line) to at most about
 * `maxChars`, keeping its start and end around a visible mark: an error must never echo a
 * 5 MB input back whole. Text within the limit is returned as it is.
 */
export function elide(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const keep = Math.max(2, maxChars - 40);
  const head = cutBefore(text, Math.ceil(keep / 2));
  const tail = text.length - cutBefore(text, text.length - Math.floor(keep / 2));
  const elided = text.length - head - tail;
  return `${text.slice(0, head)}…[${elided} characters elided]…${text.slice(text.length - tail)}`;
}

/** `at`, moved back one if it would split a surrogate pair (half a character). */
function cutBefore(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}
