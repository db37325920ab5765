import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FirstInWalkOrder, sortWalkOrder } from '../../../executor/fs/ripgrep.js';

// Names that sort on either side of "/" (".", "-", " ") and share prefixes, in trees deep enough to group.
const name = fc.constantFrom('a', 'a-b', 'a.b', 'ab', 'b', 'a b', '_', 'z', 'é', 'a.ts', 'a-b.ts');
const paths = (minLength: number) =>
  fc.uniqueArray(
    fc.array(name, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/')),
    { minLength, maxLength: 600 },
  );

/** The walk order written out: "/" as the lowest character, then plain code-unit order. */
function reference(items: readonly string[]): string[] {
  const key = (item: string): string => item.replaceAll('/', '\0');
  return [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

describe('walk order', () => {
  it('sorts a directory before a sibling whose name extends it', () => {
    expect(sortWalkOrder(['a.ts', 'a/z.ts', 'a-b/c.ts', 'a b', 'a/b/c.ts'], (p) => p)).toEqual([
      'a/b/c.ts',
      'a/z.ts',
      'a b',
      'a-b/c.ts',
      'a.ts',
    ]);
  });

  it('sortWalkOrder agrees with the reference', () => {
    fc.assert(
      fc.property(paths(1), (all) => {
        expect(sortWalkOrder(all, (p) => p)).toEqual(reference(all));
      }),
      { numRuns: 200 },
    );
  });

  it('FirstInWalkOrder keeps the start of the walk order, whatever order the paths come in', () => {
    let cut = 0;
    fc.assert(
      fc.property(paths(50), fc.integer({ min: 1, max: 60 }), fc.boolean(), (all, count, reversed) => {
        const first = new FirstInWalkOrder(count);
        // Arrival orders: as generated (random), and the worst case, last first.
        for (const p of reversed ? reference(all).reverse() : all) first.add(p);
        cut += all.length >= 2 * count ? 1 : 0;
        expect(first.first()).toEqual(reference(all).slice(0, count));
      }),
      { numRuns: 300 },
    );
    // Most runs add enough paths for the kept ones to be cut back at least once.
    expect(cut).toBeGreaterThan(150);
  });
});
