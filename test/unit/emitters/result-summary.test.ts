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
    expect(resultSummary(result({ name: 'edit_file', output: 'edited', display: diff }))).toEqual(['+3 −1']);
    expect(
      resultSummary(
        result({ name: 'write_file', output: 'x', display: { ...diff, created: true, deletions: 0 } }),
      ),
    ).toEqual(['created · +3 −0']);
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
      'exit 2 · 10 lines · 2.3 s',
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
        usage: {
          turns: 2,
          tool_calls: 3,
          input_tokens: 1500,
          output_tokens: 400,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          duration_ms: 12_400,
        },
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
      'completed · 3 tool calls · 1.9k tokens · 12.4 s · 2 files changed',
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

  it('says which answers a person chose, not the question JSON', () => {
    const output = 'The user answered:\n\nQ: Add a unit test?\nA: Yes\n\nQ: Which file?\nA: a.test.ts';
    expect(resultSummary(result({ name: 'ask_user', output }))).toEqual(['answered: Yes · a.test.ts']);
    expect(
      resultSummary(result({ name: 'ask_user', output: 'No answer came. Nobody.', isError: true })),
    ).toEqual(['no answer']);
  });

  it('is the same for a live result and one rebuilt from the log (display kept)', () => {
    const display = {
      type: 'file' as const,
      path: 'a.ts',
      startLine: 1,
      endLine: 162,
      totalLines: 162,
      truncated: false,
    };
    const live = result({ name: 'read_file', output: '     1\t/**', display });
    const logged = { name: 'read_file', output: '     1\t/**', isError: false, display };
    expect(resultSummary(logged)).toEqual(resultSummary(live));
    expect(resultSummary(logged)).toEqual(['lines 1–162 of 162']);
  });
});
