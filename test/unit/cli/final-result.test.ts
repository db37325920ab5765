import { describe, expect, it } from 'vitest';
import { createFinalResult, emptyEnding } from '../../../harness/cli/final-result.js';
import type { RunResult } from '../../../shared/run-result.js';

describe('the final result of a headless run', () => {
  it('is written exactly once, whichever ending comes first (a crash, then the run itself)', () => {
    const printed: RunResult[] = [];
    const final = createFinalResult(performance.now(), (result) => printed.push(result));
    const crash = final.write(emptyEnding('claude-sonnet-4-5', 'error', 'crash', 'Skate failed: boom'));
    const late = final.write(emptyEnding('claude-sonnet-4-5', 'cancelled', 'terminated', undefined));
    expect(printed).toHaveLength(1);
    expect(late).toBe(crash);
    expect(crash).toMatchObject({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      errorCode: 'crash',
      usage: { input_tokens: 0, inputTokens: 0 },
    });
  });
});
