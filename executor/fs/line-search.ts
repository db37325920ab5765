/** A regular expression compiled twice: to confirm one line, and to scan a whole file quickly. */
export interface LinePattern {
  /** Tests one line, without its line ending. No `g` flag, so it keeps no state between tests. */
  readonly line: RegExp;
  /** Finds candidates in a whole file: multiline, so `^` and `$` match at line breaks. */
  readonly scan: RegExp;
  /**
   * False when the raw bytes cannot hold a match because a literal every match contains is absent.
   * Most files of a search fail this, and skipping them skips their UTF-8 decoding, the main cost.
   */
  mayMatch(data: Buffer): boolean;
  /**
   * True when the first line holding the required literal matches on its own: proof the file
   * matches, found by decoding one line instead of the file. False proves nothing.
   */
  matchesQuickly(data: Buffer): boolean;
}

/** A line that matched: 1-based number, and where it lies in the text (line ending excluded). */
export interface MatchedLine {
  readonly number: number;
  readonly start: number;
  readonly end: number;
}

/**
 * Compiles a JavaScript regular expression, in unicode mode where it is valid there (so `\p{L}` and
 * astral characters work) and in legacy mode otherwise (so escapes like `\-` outside a class still do).
 * Throws the engine's `SyntaxError` when the pattern is invalid in both.
 */
export function compileLinePattern(pattern: string, caseInsensitive: boolean): LinePattern {
  const base = caseInsensitive ? 'i' : '';
  let unicode = true;
  let line: RegExp;
  try {
    line = new RegExp(pattern, `${base}u`);
  } catch {
    unicode = false;
    line = new RegExp(pattern, base);
  }
  const scan = new RegExp(pattern, `${line.flags}gm`);
  const literal = requiredLiteral(pattern);
  const usable = literal !== undefined && !/[\uD800-\uDFFF]/.test(literal);
  const bytes = usable && !caseInsensitive ? Buffer.from(literal, 'utf8') : undefined;
  return {
    line,
    scan,
    mayMatch: bytes ? (data) => data.includes(bytes) : prefilter(usable ? literal : undefined, unicode),
    matchesQuickly: bytes ? (data) => firstLineMatches(data, bytes, line) : () => false,
  };
}

function firstLineMatches(data: Buffer, literal: Buffer, line: RegExp): boolean {
  const at = data.indexOf(literal);
  if (at === -1) return false;
  const start = at === 0 ? 0 : data.lastIndexOf(10, at - 1) + 1;
  let end = data.indexOf(10, at);
  if (end === -1) end = data.length;
  if (end > start && data[end - 1] === 13) end--;
  return line.test(data.toString('utf8', start, end));
}

/**
 * The screen for a case-insensitive pattern. (Lone surrogates in a literal would not survive
 * encoding to UTF-8, so such patterns come here with no literal and go unscreened.)
 */
function prefilter(literal: string | undefined, unicode: boolean): (data: Buffer) => boolean {
  if (literal === undefined) return () => true;
  // Without case, compare ASCII against the bytes read as Latin-1 (one character per byte). In
  // unicode mode "ſ" (U+017F) folds to "s" and the Kelvin sign to "k", so those letters are unsafe.
  if (!/^[\x20-\x7e]+$/.test(literal) || (unicode && /[sk]/i.test(literal))) return () => true;
  const loose = new RegExp(literal.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'), 'i');
  return (data) => loose.test(data.toString('latin1'));
}

const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S', 'b', 'B', 'n', 'r', 't', 'f', 'v']);
const QUANTIFIER = /^\{(\d+)(?:,\d*)?\}/;

/**
 * The longest run of literal characters every match of `source` must contain, or undefined when
 * there is none worth using. Deliberately conservative: anything it does not understand (an
 * alternation at the top, a \u or \p escape, a backreference) gives up rather than guess, since a
 * wrong literal would hide real matches.
 */
export function requiredLiteral(source: string): string | undefined {
  const runs: string[] = [];
  let run = '';
  const flush = (): void => {
    if (run !== '') runs.push(run);
    run = '';
  };
  let literalBefore = false;
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    let literal: string | undefined;
    if (ch === '|') return undefined;
    if (ch === '\\') {
      const next = source[i + 1];
      if (next === undefined) return undefined;
      if (/[\\^$.*+?()[\]{}|/-]/.test(next)) literal = next;
      else if (next === '0' && !/\d/.test(source[i + 2] ?? '')) literal = '\0';
      else if (!CLASS_ESCAPES.has(next)) return undefined;
      i += 2;
    } else if (ch === '[' || ch === '(') {
      const end = skipGroup(source, i);
      if (end === undefined) return undefined;
      i = end;
    } else if (ch === '*' || ch === '?' || ch === '+' || (ch === '{' && QUANTIFIER.test(source.slice(i)))) {
      const counted = ch === '{' ? QUANTIFIER.exec(source.slice(i))! : undefined;
      // The atom before `*`, `?` or `{0,…}` may be absent from a match; before `+` it is there once.
      if (literalBefore && (ch === '*' || ch === '?' || counted?.[1] === '0')) run = run.slice(0, -1);
      flush();
      i += counted ? counted[0].length : 1;
      if (source[i] === '?') i++; // lazy
      literalBefore = false;
      continue;
    } else if (ch === '.' || ch === '^' || ch === '$') {
      i++;
    } else {
      literal = ch;
      i++;
    }
    if (literal === undefined) flush();
    else run += literal;
    literalBefore = literal !== undefined;
  }
  flush();
  let best: string | undefined;
  for (const candidate of runs) if (candidate.length > (best?.length ?? 0)) best = candidate;
  return best;
}

/** Index just past the class or group opening at `start`, honouring escapes and nesting. */
function skipGroup(source: string, start: number): number | undefined {
  let depth = 0;
  let inClass = false;
  for (let i = start; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') i++;
    else if (inClass) {
      if (ch === ']') {
        inClass = false;
        if (depth === 0) return i + 1;
      }
    } else if (ch === '[') inClass = true;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i + 1;
  }
  return undefined;
}

/**
 * The lines of `text` the pattern matches, at most `limit` of them. The whole text is scanned first
 * and only the lines around candidate matches are cut out, so a file without a match costs one
 * regular-expression pass and no allocation. Each candidate's line is confirmed on its own, because
 * in the whole text a pattern such as `a\sb` can match across a line break.
 */
export function matchingLines(text: string, pattern: LinePattern, limit: number): MatchedLine[] {
  const found: MatchedLine[] = [];
  const scan = pattern.scan;
  let position = 0;
  let lineNumber = 1;
  let countedTo = 0;
  while (position <= text.length && found.length < limit) {
    scan.lastIndex = position;
    const hit = scan.exec(text);
    if (!hit) break;
    const start = hit.index === 0 ? 0 : text.lastIndexOf('\n', hit.index - 1) + 1;
    // The empty "line" after a final newline is not a line.
    if (start === text.length && start > 0) break;
    let end = text.indexOf('\n', hit.index);
    if (end === -1) end = text.length;
    const contentEnd = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    if (pattern.line.test(text.slice(start, contentEnd))) {
      for (let nl = text.indexOf('\n', countedTo); nl !== -1 && nl < start; nl = text.indexOf('\n', nl + 1)) {
        lineNumber++;
      }
      countedTo = start;
      found.push({ number: lineNumber, start, end: contentEnd });
    }
    position = end + 1;
  }
  return found;
}
