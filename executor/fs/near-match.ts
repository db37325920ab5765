/** Where text nearly matching a search string lies: equal once all whitespace is removed. */
export interface NearMatch {
  readonly startLine: number;
  readonly endLine: number;
  /** The file's own lines there, so a model can copy them exactly. */
  readonly text: string;
}

/** Lines of a near match shown; enough to copy a typical edit, not a whole file. */
const MAX_SHOWN_LINES = 30;

/** 1-based number of the line holding `index`. */
export function lineOf(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line++;
  return line;
}

/**
 * Finds `needle` in `text` ignoring all whitespace: the usual reason an exact edit fails is
 * indentation, tabs for spaces, or a reflowed line. Returns the first such place.
 */
export function findNearMatch(text: string, needle: string): NearMatch | undefined {
  const squeezedNeedle = needle.replace(/\s+/g, '');
  if (squeezedNeedle === '') return undefined;
  // Runs of non-space characters, each remembered with where it starts in both texts.
  const runs: { squeezed: number; original: number }[] = [];
  const parts: string[] = [];
  let length = 0;
  for (const run of text.matchAll(/\S+/g)) {
    runs.push({ squeezed: length, original: run.index });
    parts.push(run[0]);
    length += run[0].length;
  }
  const at = parts.join('').indexOf(squeezedNeedle);
  if (at === -1) return undefined;
  const original = (index: number): number => {
    let low = 0;
    let high = runs.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (runs[mid]!.squeezed <= index) low = mid;
      else high = mid - 1;
    }
    return runs[low]!.original + (index - runs[low]!.squeezed);
  };
  const startLine = lineOf(text, original(at));
  const endLine = lineOf(text, original(at + squeezedNeedle.length - 1));
  const lines = text.split('\n').slice(startLine - 1, endLine);
  const shown = lines.slice(0, MAX_SHOWN_LINES).map((line) => line.replace(/\r$/, ''));
  if (lines.length > MAX_SHOWN_LINES) shown.push(`… (${lines.length - MAX_SHOWN_LINES} more lines)`);
  return { startLine, endLine, text: shown.join('\n') };
}
