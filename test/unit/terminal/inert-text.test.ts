import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  inertJson,
  inertStyledText,
  inertText,
  joinInert,
  jsonFor,
} from '../../../harness/terminal/inert-text.js';
import { inertValue } from '../../../harness/terminal/inert-value.js';
import { HOSTILE_SEQUENCES, HOSTILE_TEXT, INERT_FORMS } from '../../support/hostile-sequences.js';

/** Anything a terminal could act on or that hides text, but tab and newline. */
const ACTIVE =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/;
/** What JSON.stringify leaves raw that a terminal could act on (C0 it escapes). */
const ACTIVE_IN_JSON = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/** A string made of the characters that matter here, mixed with plain ones. */
const mixedText = fc
  .array(
    fc.oneof(
      fc.constantFrom('\x1b', '\r', '\n', '\t', '\x07', '\b', '\x7f', '\u009b', '\u009c', '\u202e', '\u2066'),
      fc.constantFrom('\u200d', '\udb40\udc41', '[', ']', ';', 'm', '2', 'J', 'é', '👍', ' '),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe('inertText: untrusted text made visible and inert', () => {
  it.each(HOSTILE_SEQUENCES)('$name: nothing active is left, the payload stays readable', ({ text }) => {
    const inert = inertText(text);
    expect(inert).not.toMatch(ACTIVE);
    // What the sequence would have done stays visible: its printable payload survives.
    for (const word of text.match(/PWNED[\w-]*|evil\.example|rm -rf/g) ?? []) expect(inert).toContain(word);
  });

  it('shows each control as a readable stand-in', () => {
    const inert = inertText(HOSTILE_TEXT);
    for (const form of Object.values(INERT_FORMS)) expect(inert).toContain(form);
    expect(inertText('a\x1bb')).toBe('a␛b');
    expect(inertText('\x00\x07\x08\x0b\x0c\x1b\x7f')).toBe('␀␇␈␋␌␛␡');
    expect(inertText('\u0085\u009b\u009d\u009f')).toBe('<U+0085><U+009B><U+009D><U+009F>');
    expect(inertText('\u202a\u202e\u2066\u2069\u200e\u200f\u061c')).toBe(
      '<U+202A><U+202E><U+2066><U+2069><U+200E><U+200F><U+061C>',
    );
    expect(inertText('x\u200b\u2060\ufeff\u00ad\u2028y')).toBe('x<U+200B><U+2060><U+FEFF><U+00AD><U+2028>y');
    expect(inertText('tag\udb40\udc41\udb40\udc7f')).toBe('tag<U+E0041><U+E007F>');
  });

  it('keeps tabs and newlines, turns CR LF into a line end and a lone CR into ␍', () => {
    expect(inertText('a\tb\nc')).toBe('a\tb\nc');
    expect(inertText('one\r\ntwo\r\n')).toBe('one\ntwo\n');
    expect(inertText('50%\r100%\r')).toBe('50%␍100%␍');
    expect(inertText('\r\r\n')).toBe('␍\n');
  });

  it('leaves clean text alone (the same string) and what scripts and emoji are made of', () => {
    const clean = 'const é = "👨‍👩‍👧 नमस्‍ते ﻻ";\n\tdone';
    expect(inertText(clean)).toBe(clean);
    expect(Object.is(inertText(clean), clean)).toBe(true);
    // A lone surrogate is not a control: Node writes it as U+FFFD.
    expect(inertText('\udb40x')).toBe('\udb40x');
  });

  it('is the same whether a text is made inert whole or in any pieces (streamed deltas), CR LF aside', () => {
    fc.assert(
      fc.property(mixedText, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        // A cut inside CR LF or inside a surrogate pair changes what the halves are.
        const clean = points.filter(
          (at) =>
            !(text[at - 1] === '\r' && text[at] === '\n') &&
            !(/[\ud800-\udbff]/.test(text[at - 1] ?? '') && /[\udc00-\udfff]/.test(text[at] ?? '')),
        );
        const pieces = [0, ...clean, text.length]
          .slice(1)
          .map((end, i, ends) => text.slice(i === 0 ? 0 : ends[i - 1], end));
        const whole = inertText(text);
        expect(pieces.map(inertText).join('')).toBe(whole);
        expect(whole).not.toMatch(ACTIVE);
        // Idempotent: inert text has nothing left to replace.
        expect(inertText(whole)).toBe(whole);
      }),
      { seed: 20_10, numRuns: 500 },
    );
  });
});

describe('joinInert: a streamed reply growing delta by delta', () => {
  it('stays inert wherever a delta was cut, a surrogate pair or CR LF included', () => {
    fc.assert(
      fc.property(mixedText, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        let shown = '';
        let from = 0;
        for (const at of [...points, text.length]) {
          shown = joinInert(shown, inertText(text.slice(from, at)));
          from = at;
        }
        expect(shown).not.toMatch(ACTIVE);
      }),
      { seed: 20_10, numRuns: 500 },
    );
    // A tag character cut in two by the stream is still shown, not rejoined raw.
    expect(joinInert(inertText('ok\udb40'), inertText('\udc41!'))).toBe('ok<U+E0041>!');
    expect(joinInert('a', 'b')).toBe('ab');
  });
});

describe('inertStyledText: a renderer’s last step', () => {
  it('lets SGR colours through and nothing else', () => {
    const styled = '\x1b[1mbold\x1b[22m \x1b[38;2;255;0;0mred\x1b[39m \x1b[38:5:3mx\x1b[0m';
    expect(inertStyledText(styled)).toBe(styled);
    expect(inertStyledText(`\x1b[2m${HOSTILE_TEXT}\x1b[22m`)).toBe(
      `\x1b[2m${inertText(HOSTILE_TEXT)}\x1b[22m`,
    );
    expect(inertStyledText('\x1b[2J\x1b[1;3r\x1b[5A\x1b]0;t\x07\x1b[')).toBe('␛[2J␛[1;3r␛[5A␛]0;t␇␛[');
  });

  it('leaves text made inert as it is', () => {
    fc.assert(
      fc.property(mixedText, (text) => {
        const inert = inertText(text);
        expect(inertStyledText(inert)).toBe(inert);
      }),
      { seed: 20_10, numRuns: 300 },
    );
  });
});

describe('inertJson: stream-json and json stay the same values', () => {
  it('JSON.stringify escapes C0 already; C1, DEL and bidi controls are escaped too, and parse back equal', () => {
    const value = { text: HOSTILE_TEXT, nested: [{ 'key\u009b\u202e': 'v\x7f' }] };
    const raw = JSON.stringify(value);
    // What JSON.stringify alone leaves for a terminal: C1 and bidi controls, raw.
    expect(raw).not.toMatch(/[\x00-\x1f]/);
    expect(raw).toMatch(ACTIVE_IN_JSON);
    const json = inertJson(raw);
    expect(json).not.toMatch(ACTIVE);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('is byte-exact for JSON without such characters', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const raw = JSON.stringify(value);
        const json = inertJson(raw);
        expect(JSON.parse(json)).toEqual(JSON.parse(raw));
        if (!ACTIVE.test(raw)) expect(json).toBe(raw);
      }),
      { seed: 20_10, numRuns: 300 },
    );
  });
});

describe('jsonFor: escaped for a terminal, exact for a program', () => {
  it('writes JSON.stringify bytes to a pipe and inertJson text to a terminal, the same value', () => {
    const value = { text: HOSTILE_TEXT };
    expect(jsonFor({}, value)).toBe(JSON.stringify(value));
    expect(jsonFor({ isTTY: false }, value, 2)).toBe(JSON.stringify(value, null, 2));
    const shown = jsonFor({ isTTY: true }, value, 2);
    expect(shown).toBe(inertJson(JSON.stringify(value, null, 2)));
    expect(shown).not.toMatch(ACTIVE);
    expect(JSON.parse(shown)).toEqual(value);
  });
});

describe('inertValue: every string of a value, keys included', () => {
  it('reaches nested fields and keys, and copies only what changed', () => {
    const clean = { path: 'src/a.ts', list: ['x', 1, null, true] };
    const value = {
      type: 'tool_call_start',
      agent: [] as string[],
      args: { command: 'echo \x1b]0;t\x07', deep: [{ 'k\x1b': ['\u009b'] }], clean },
    };
    const inert = inertValue(value);
    expect(inert).toEqual({
      type: 'tool_call_start',
      agent: [],
      args: { command: 'echo ␛]0;t␇', deep: [{ 'k␛': ['<U+009B>'] }], clean },
    });
    expect(inert.args.clean).toBe(clean);
    expect(inert.agent).toBe(value.agent);
    expect(value.args.command).toBe('echo \x1b]0;t\x07');
    expect(inertValue(clean)).toBe(clean);
  });

  it('keeps a `__proto__` key a key, and cuts hostile nesting short', () => {
    const parsed = JSON.parse('{"__proto__": {"x": "\\u001b"}}') as Record<string, unknown>;
    const inert = inertValue(parsed);
    expect(Object.getPrototypeOf(inert)).toBe(Object.prototype);
    expect(Object.keys(inert)).toEqual(['__proto__']);
    expect(JSON.stringify(inert)).toBe('{"__proto__":{"x":"␛"}}');
    let deep: unknown = '\x1b';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(JSON.stringify(inertValue(deep))).not.toMatch(/\\u001b/);
  });
});
