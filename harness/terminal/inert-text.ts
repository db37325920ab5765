/**
 * Text a model, a tool or a file produced, made safe to show on a terminal: every character that
 * could drive the terminal or make a line read differently from what it is becomes a visible,
 * printable stand-in. Issue #20, item 10.
 *
 * What is replaced, one character at a time (no sequence is parsed, so a sequence cut across two
 * streamed deltas is as inert as a whole one, and an unterminated one swallows nothing):
 * - C0 controls but tab and newline, ESC included, as Control Pictures (`␛`, `␇`, `␈`, `␍`…);
 *   a CR before a LF is a line end and goes, a lone CR (which would draw over the line) shows as `␍`;
 * - DEL as `␡`;
 * - C1 controls U+0080–U+009F (which xterm and VTE obey in UTF-8 too: U+009B is CSI) as `<U+009B>`;
 * - the invisible format characters code review tools flag: bidi embeddings, overrides, isolates
 *   and marks, zero-width space, word joiner and invisible operators, BOM, soft hyphen, line and
 *   paragraph separators, interlinear annotations, and tag characters (invisible ASCII), as `<U+202E>`.
 * ZWJ and ZWNJ stay: emoji sequences and several scripts are made of them, and they hide nothing.
 */
export function inertText(text: string): string {
  // The common case (nothing to replace) costs one regex scan and no copy.
  return UNSAFE.test(text) ? replaceUnsafe(text, false) : text;
}

/**
 * Text Skate styled itself (chalk's colours around inert content): SGR sequences (`ESC [ … m`)
 * stay, every other control is made inert as `inertText` does. The last step of a terminal
 * renderer, so that whatever reached it unescaped can at most change a colour.
 */
export function inertStyledText(text: string): string {
  return UNSAFE.test(text) ? replaceUnsafe(text, true) : text;
}

/**
 * `inertText(a + b)` for two texts already inert, without scanning them again: what a streamed
 * reply grows by. Only a surrogate pair cut between them can make something new (a tag character).
 */
export function joinInert(a: string, b: string): string {
  const high = a.charCodeAt(a.length - 1);
  if (!(high >= 0xd800 && high <= 0xdbff) || b === '') return a + b;
  return a.slice(0, -1) + inertText(a.slice(-1) + b.slice(0, 1)) + b.slice(1);
}

/**
 * JSON text (from `JSON.stringify`) with the characters it leaves raw that a terminal could act
 * on or that hide text (DEL, C1, the invisible format characters above) written as `\uXXXX`
 * escapes: the same JSON value, whatever reads it. C0 controls are escaped by JSON.stringify.
 */
export function inertJson(json: string): string {
  return UNSAFE_IN_JSON.test(json) ? json.replace(UNSAFE_IN_JSON_ALL, jsonEscape) : json;
}

/**
 * A value as JSON for `stream`: exactly `JSON.stringify`'s bytes for a program (a pipe, a file),
 * with `inertJson`'s escapes when the stream is a terminal a person reads. The same value either way.
 */
export function jsonFor(stream: { isTTY?: boolean }, value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent) ?? '';
  return stream.isTTY === true ? inertJson(json) : json;
}

/** Non-C0 characters replaced: DEL, C1, and the invisible format characters. */
const FORMAT =
  '\\x7f-\\x9f\\xad\\u061c\\u180e\\u200b\\u200e\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb';
/** Tag characters U+E0000–U+E007F, as the UTF-16 surrogate pairs a string holds them in. */
const TAGS = '\\udb40[\\udc00-\\udc7f]';
/**
 * Whether a text may hold something to replace: one character class (a tag character's high
 * surrogate stands for it), which V8 scans faster than an alternation; the replacing pass
 * decides about each surrogate.
 */
const UNSAFE = new RegExp(`[\\x00-\\x08\\x0b-\\x1f${FORMAT}\\udb40]`);
const UNSAFE_IN_JSON = new RegExp(`[${FORMAT}\\udb40]`);
const UNSAFE_IN_JSON_ALL = new RegExp(`[${FORMAT}]|${TAGS}`, 'g');

/** Which code units below 0x100 are replaced: C0 but tab and newline, DEL, C1, soft hyphen. */
const LOW = new Uint8Array(0x100);
for (let code = 0; code < 0x20; code++) if (code !== 0x09 && code !== 0x0a) LOW[code] = 1;
for (let code = 0x7f; code <= 0x9f; code++) LOW[code] = 1;
LOW[0xad] = 1;
/** Their stand-ins, made once. */
const LOW_PICTURES = Array.from({ length: 0x100 }, (_, code) => (LOW[code] === 1 ? picture(code) : ''));

function unsafeAbove0xff(code: number): boolean {
  return (
    code === 0x061c ||
    code === 0x180e ||
    code === 0x200b ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2064) ||
    (code >= 0x2066 && code <= 0x206f) ||
    code === 0xfeff ||
    (code >= 0xfff9 && code <= 0xfffb)
  );
}

/** A scan by code unit (measured faster than a regex replace with a callback on a hostile 1 MB). */
function replaceUnsafe(text: string, keepSgr: boolean): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let width = 1;
    let standIn: string;
    if (code < 0x100) {
      if (LOW[code] === 0) continue;
      if (code === 0x1b && keepSgr) {
        const end = sgrEnd(text, i);
        if (end > 0) {
          i = end - 1;
          continue;
        }
      }
      // CR LF is a line end: the LF alone says it.
      standIn = code === 0x0d && text.charCodeAt(i + 1) === 0x0a ? '' : LOW_PICTURES[code]!;
    } else if (code === 0xdb40) {
      const low = text.charCodeAt(i + 1);
      // NaN at the end of the text: a lone high surrogate (`joinInert` sees to one cut from its pair).
      if (!(low >= 0xdc00 && low <= 0xdc7f)) continue;
      standIn = picture(0xe0000 + low - 0xdc00);
      width = 2;
    } else if (unsafeAbove0xff(code)) {
      standIn = picture(code);
    } else {
      continue;
    }
    out += text.slice(start, i) + standIn;
    start = i + width;
    i += width - 1;
  }
  return start === 0 ? text : out + text.slice(start);
}

/** Where the SGR sequence starting at `at` (an ESC) ends, or 0 when it is none: `ESC [ [0-9;:]* m`. */
function sgrEnd(text: string, at: number): number {
  if (text.charCodeAt(at + 1) !== 0x5b) return 0;
  for (let i = at + 2; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x6d) return i + 1;
    if (!((code >= 0x30 && code <= 0x39) || code === 0x3b || code === 0x3a)) return 0;
  }
  return 0;
}

function picture(code: number): string {
  // U+2400 + n pictures C0 control n; U+2421 is DEL's.
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

function jsonEscape(match: string): string {
  let out = '';
  for (let i = 0; i < match.length; i++) out += `\\u${match.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}
