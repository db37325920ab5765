import { describe, expect, it } from 'vitest';
import { groupThousands } from '../../../harness/cli/run-summary-line.js';

describe('groupThousands', () => {
  it('writes counts as Intl.NumberFormat en-US does', () => {
    const en = new Intl.NumberFormat('en-US');
    for (const value of [0, 7, 999, 1000, 2700, 12_345, 999_999, 1_000_000, 1_234_567_890, 98_765_432_101]) {
      expect(groupThousands(value)).toBe(en.format(value));
    }
  });
});
