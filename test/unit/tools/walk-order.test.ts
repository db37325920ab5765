import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstInWalkOrder, sortWalkOrder } from '../../../executor/fs/ripgrep.js';

// Names that sort on either side of "/" (".", "-", " ") and share prefixes, in trees deep enough to group.
const name = fc.constantFrom('a', 'a-b', 'a.b', 'ab', 'b', 'a b', '_', 'z', 'é', 'a.ts', 'a-b.ts');
const paths = fc.uniqueArray(
  fc.array(name, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/')),
  { minLength: 100, maxLength: 600 },
);

describe('firstInWalkOrder', () => {
  it('is the start of the walk order, however many paths and wherever the cut falls', () => {
    let grouped = 0;
    fc.assert(
      fc.property(paths, fc.integer({ min: 1, max: 30 }), (all, count) => {
        // A file and a directory cannot share a name: drop paths that are another's directory.
        const files = all.filter((p) => !all.some((q) => q.startsWith(`${p}/`)));
        const items = files.map((relative) => ({ relative }));
        grouped += items.length > Math.max(64, 2 * count) ? 1 : 0;
        const expected = sortWalkOrder(items, (item) => item.relative).slice(0, count);
        expect(firstInWalkOrder(items, (item) => item.relative, count)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
    // Most runs are large enough to be grouped rather than sorted outright.
    expect(grouped).toBeGreaterThan(100);
  });
});
