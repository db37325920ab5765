import superjson from 'superjson';
import { describe, expect, it } from 'vitest';
import { superjsonFast } from '../../../shared/superjson-fast.js';

describe('superjsonFast', () => {
  it('encodes plain JSON values exactly as superjson does', () => {
    const values: unknown[] = [
      { output: 'a\tb\n', isError: false, display: { type: 'file', startLine: 1, totalLines: 28 } },
      [1, 'two', null, true, { nested: [[], {}] }],
      'text',
      0,
      null,
    ];
    for (const value of values) {
      expect(superjsonFast.serialize(value)).toEqual(superjson.serialize(value));
      expect(superjsonFast.deserialize(superjsonFast.serialize(value))).toEqual(value);
    }
  });

  it('hands everything JSON cannot carry to superjson, which round-trips it', () => {
    const values: unknown[] = [
      { when: new Date(0) },
      { missing: undefined, kept: 1 },
      [1, undefined],
      { n: Number.NaN, inf: Number.POSITIVE_INFINITY, negativeZero: -0 },
      new Map([['k', 1]]),
      { big: 10n },
    ];
    for (const value of values) {
      const encoded = superjsonFast.serialize(value);
      expect(encoded).toEqual(superjson.serialize(value));
      expect(encoded.meta).toBeDefined();
      expect(superjsonFast.deserialize(encoded)).toEqual(value);
    }
  });

  it('decodes what superjson encodes, with or without annotations', () => {
    const value = { at: new Date(5), list: [1, 2], text: 'x' };
    expect(superjsonFast.deserialize(superjson.serialize(value))).toEqual(value);
    expect(superjsonFast.deserialize(superjson.serialize({ plain: [1] }))).toEqual({ plain: [1] });
  });
});
