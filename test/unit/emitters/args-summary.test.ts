import { describe, expect, it } from 'vitest';
import { argsSummary } from '../../../harness/emitters/args-summary.js';

describe('argsSummary', () => {
  it('shows the most telling argument, clipped with an ellipsis', () => {
    expect(argsSummary({ path: 'src/a.ts', content: 'x'.repeat(500) })).toBe('src/a.ts');
    expect(argsSummary({ command: 'npm test' })).toBe('npm test');
    expect(argsSummary({ command: 'a'.repeat(30) }, 10)).toBe(`${'a'.repeat(9)}…`);
  });

  it("names a sub-agent by its task, not by its arguments' JSON", () => {
    const args = { write_paths: ['src/'], task: 'Find every caller of parse()\nand list them' };
    expect(argsSummary(args)).toBe('Find every caller of parse() ⏎ and list them');
  });

  it('falls back to compact JSON, and to nothing for no arguments', () => {
    expect(argsSummary({ limit: 3 })).toBe('{"limit":3}');
    expect(argsSummary({})).toBe('');
  });
});
