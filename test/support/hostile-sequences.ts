/**
 * Terminal control sequences an attacker would put in a model's reply, a tool's output, a file or
 * a tool call's arguments (issue #20, item 10), each with what it does when a terminal obeys it.
 * Payloads carry `PWNED` so a test can tell whether any reached the clipboard, a title or a name.
 */

const base64 = (text: string): string => Buffer.from(text).toString('base64');

export interface HostileSequence {
  name: string;
  text: string;
}

/** The fake prompt a bare `\r` (or cursor moves) would draw over a real line. */
export const FAKE_PROMPT = 'Allow shell `rm -rf ~`? [y]es / [n]o';

export const HOSTILE_SEQUENCES: readonly HostileSequence[] = [
  { name: 'OSC 52 clipboard (BEL)', text: `\x1b]52;c;${base64('PWNED-CLIPBOARD')}\x07` },
  { name: 'OSC 52 primary (ST)', text: `\x1b]52;p;${base64('PWNED-PRIMARY')}\x1b\\` },
  { name: 'OSC 0 title', text: '\x1b]0;PWNED-TITLE-0\x07' },
  { name: 'OSC 1 icon name', text: '\x1b]1;PWNED-ICON-1\x07' },
  { name: 'OSC 2 title (ST)', text: '\x1b]2;PWNED-TITLE-2\x1b\\' },
  { name: 'OSC 8 link', text: '\x1b]8;;https://evil.example/\x1b\\a harmless link\x1b]8;;\x1b\\' },
  { name: 'tmux window name', text: '\x1bkPWNED-WINDOW\x1b\\' },
  { name: 'CSI clear screen and scrollback', text: '\x1b[2J\x1b[3J\x1b[H' },
  { name: 'CSI cursor up, erase line', text: '\x1b[3A\x1b[2K' },
  { name: 'CSI scroll region', text: '\x1b[1;3r' },
  { name: 'CSI cursor position report (the terminal answers on stdin)', text: '\x1b[6n' },
  { name: 'RIS full reset', text: '\x1bc' },
  { name: 'DCS tmux passthrough', text: `\x1bPtmux;\x1b\x1b]52;c;${base64('PWNED-PASSTHROUGH')}\x07\x1b\\` },
  { name: 'APC string', text: '\x1b_PWNED-APC\x1b\\' },
  { name: 'PM string', text: '\x1b^PWNED-PM\x1b\\' },
  { name: 'SOS string', text: '\x1bXPWNED-SOS\x1b\\' },
  { name: 'CR overwrite', text: `checking the files...\r${FAKE_PROMPT}` },
  { name: 'backspaces', text: 'notes.txt\b\b\b\b\b\b\b\b\bPWNED.exe' },
  { name: 'C1 CSI (U+009B)', text: '\u009b2J' },
  { name: 'C1 OSC with 8-bit ST', text: `\u009d52;c;${base64('PWNED-C1')}\u009c` },
  { name: 'bidi override and isolate', text: 'file: \u202etxt.exe\u202c and \u2066isolated\u2069' },
  { name: 'zero-width and tag characters', text: 'ok\u200b\udb40\udc50\udb40\udc57\udb40\udc4e' },
  // No NUL: read_file takes a file with one for binary and shows none of it (the unit tests have NUL).
  { name: 'DEL', text: 'a\x7fb' },
  // Last: a string sequence left open swallows whatever the terminal is sent after it.
  { name: 'unterminated OSC 52', text: `\x1b]52;c;${base64('PWNED-UNTERMINATED')}` },
];

/** Every sequence on a line of its own, as a file or a command's output would hold them. */
export const HOSTILE_LINES = HOSTILE_SEQUENCES.map((sequence) => `${sequence.name}: ${sequence.text}`);

/** The whole corpus as one text with a trailing newline. */
export const HOSTILE_TEXT = `${HOSTILE_LINES.join('\n')}\n`;

/** How the sanitizer shows the sequences that matter most: what a test expects on the screen. */
export const INERT_FORMS = {
  clipboard: `␛]52;c;${base64('PWNED-CLIPBOARD')}␇`,
  title: '␛]0;PWNED-TITLE-0␇',
  clear: '␛[2J␛[3J␛[H',
  carriageReturn: `checking the files...␍${FAKE_PROMPT}`,
  c1: '<U+009B>2J',
  bidi: '<U+202E>txt.exe<U+202C>',
  tags: 'ok<U+200B><U+E0050><U+E0057><U+E004E>',
} as const;
