import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { elide } from '../../../shared/elide.js';
import { prettifyZodError } from '../../../shared/zod-errors.js';

describe('errors never echo a huge input back whole', () => {
  it('elide keeps short text, and bounds long text around a visible mark', () => {
    expect(elide('short', 100)).toBe('short');
    const long = `${'a'.repeat(3_000_000)}END`;
    const shown = elide(long, 200);
    expect(shown.length).toBeLessThanOrEqual(200);
    expect(shown).toMatch(/^a+…\[\d+ characters elided\]…a+END$/);
    expect(Number(/\[(\d+) characters/.exec(shown)![1]) + shown.length).toBeGreaterThan(long.length - 50);
    // Never half a character: a surrogate pair at the cut stays whole or goes whole.
    const emoji = elide('😀'.repeat(1000), 101);
    expect(emoji).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it("bounds zod's wording: quoted keys elided, and at most 20 problems listed", () => {
    const hugeKey = 'k'.repeat(5 * 1024 * 1024);
    const strict = z.object({ a: z.string() }).strict();
    const unknownKey = strict.safeParse({ a: 'x', [hugeKey]: 1 });
    expect(unknownKey.success).toBe(false);
    const text = prettifyZodError(unknownKey.error!);
    expect(text.length).toBeLessThan(1000);
    expect(text).toMatch(/^✖ Unrecognized key: "k+…\[\d+ characters elided\]…k+"$/);

    const record = z.record(z.string(), z.number()).safeParse({ [hugeKey]: 'not a number' });
    const atKey = prettifyZodError(record.error!);
    expect(atKey.length).toBeLessThan(1000);
    expect(atKey).toContain('characters elided');

    const many = z.array(z.number()).safeParse(Array.from({ length: 5000 }, () => 'x'));
    const listed = prettifyZodError(many.error!);
    expect(listed.match(/^✖ /gm)).toHaveLength(21);
    expect(listed).toMatch(/✖ … and 4980 more problems$/);
  });
});
