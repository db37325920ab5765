import { describe, expect, it } from 'vitest';
import { approvalPreview } from '../../../harness/cli/approval-preview.js';

describe('approvalPreview', () => {
  it('shows a whole command, an edit as lines out and in, and a write as its start', () => {
    expect(approvalPreview('shell', { command: 'npm ci\nnpm test', cwd: 'app' })).toEqual([
      '$ npm ci',
      '$ npm test',
      '(in app)',
    ]);
    expect(
      approvalPreview('edit_file', { path: 'a.ts', old_string: 'x = 1\n', new_string: 'x = 2\ny = 3\n' }),
    ).toEqual(['a.ts', '- x = 1', '+ x = 2', '+ y = 3']);
    const content = Array.from({ length: 25 }, (_, i) => `line ${i}`).join('\n');
    const write = approvalPreview('write_file', { path: 'b.txt', content });
    expect(write[0]).toBe('b.txt (the whole file, 25 lines)');
    expect(write).toHaveLength(22);
    expect(write.at(-1)).toBe('… 5 more lines');
  });

  it('falls back to the arguments as JSON for other tools', () => {
    expect(approvalPreview('mcp_thing', { a: 1 })).toEqual(['{', '  "a": 1', '}']);
  });
});
