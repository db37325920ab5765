import { describe, expect, it } from 'vitest';
import { resultSummary } from '../../../harness/emitters/result-summary.js';
import type { EngineEvent } from '../../../shared/engine-events.js';

type Result = Extract<EngineEvent, { type: 'tool_call_result' }>;

function result(fields: Partial<Result> & Pick<Result, 'name' | 'output'>): Result {
  return { type: 'tool_call_result', agent: [], id: 'x', isError: false, durationMs: 1, ...fields };
}

describe('resultSummary', () => {
  it('shows a diff stat for writes and edits', () => {
    const diff = {
      type: 'diff' as const,
      path: 'src/a.ts',
      diff: '…',
      additions: 3,
      deletions: 1,
      created: false,
    };
    expect(resultSummary(result({ name: 'edit_file', output: 'edited', display: diff }))).toEqual([
      'changed src/a.ts (+3 −1)',
    ]);
    expect(
      resultSummary(
        result({ name: 'write_file', output: 'x', display: { ...diff, created: true, deletions: 0 } }),
      ),
    ).toEqual(['created src/a.ts (+3 −0)']);
  });

  it("shows a command's exit code and the head and tail of a long output, not the status line", () => {
    const output = `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n')}\n[exit code 2]`;
    const display = {
      type: 'command' as const,
      command: 'npm test',
      exitCode: 2,
      signal: null,
      durationMs: 2300,
      timedOut: false,
      truncated: false,
    };
    expect(resultSummary(result({ name: 'shell', output, display, isError: true }))).toEqual([
      'exit 2 · 2.3 s',
      'line 1',
      'line 2',
      '… 5 more lines (all of them: --output-format stream-json)',
      'line 8',
      'line 9',
      'line 10',
    ]);
  });

  it("shows a sub-agent's status and summary instead of its JSON", () => {
    const output = JSON.stringify(
      {
        agent_id: 'agent-1',
        usage: { turns: 2 },
        result: {
          status: 'completed',
          summary: 'Renamed the helper.\nAll tests pass.',
          files_changed: ['a.ts', 'b.ts'],
          tests_run: [],
          follow_ups: [],
        },
      },
      null,
      2,
    );
    expect(resultSummary(result({ name: 'spawn_agent', output }))).toEqual([
      'agent-1 completed (2 files changed)',
      'Renamed the helper.',
      'All tests pass.',
    ]);
    expect(
      resultSummary(
        result({
          name: 'spawn_agent',
          output: 'sub-agent failed (timeout): out of time\n{"agent_id":"agent-1"}',
          isError: true,
        }),
      ),
    ).toEqual(['sub-agent failed (timeout): out of time']);
  });

  it('clips long lines and counts what it leaves out', () => {
    const [first, ...rest] = resultSummary(
      result({ name: 'mystery', output: `${'x'.repeat(300)}\na\nb\nc\nd` }),
    );
    expect(first).toHaveLength(100);
    expect(rest).toEqual(['a', 'b', '… 2 more lines']);
  });
});
