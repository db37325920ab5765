import { describe, expect, it } from 'vitest';
import { interpretHookResult } from '../../../harness/hooks/interpret-hook-result.js';
import { matchesTool } from '../../../harness/hooks/match-tool.js';

const exited = (exitCode: number, stdout = '', stderr = '') =>
  ({ status: 'exited', exitCode, stdout, stderr, durationMs: 1 }) as const;

describe("interpretHookResult (Claude Code's rules)", () => {
  it('exit 2 denies a tool call, blocks a stop or a result, with stderr as the reason', () => {
    expect(interpretHookResult('PreToolUse', exited(2, '', 'no rm -rf\n'), undefined)).toMatchObject({
      outcome: 'deny',
      verdict: { permission: { decision: 'deny', reason: 'no rm -rf' } },
    });
    expect(interpretHookResult('Stop', exited(2, '', 'tests fail'), undefined).verdict.block).toBe(
      'tests fail',
    );
    expect(interpretHookResult('PostToolUse', exited(2, '', 'lint'), undefined).verdict.block).toBe('lint');
    expect(interpretHookResult('Notification', exited(2, '', 'x'), undefined).outcome).toBe('none');
  });

  it('reads JSON decisions: permissionDecision, the older approve/block, decision block, continue false, context', () => {
    const json = (value: unknown) => exited(0, JSON.stringify(value));
    expect(
      interpretHookResult(
        'PreToolUse',
        json({
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'ask',
            permissionDecisionReason: 'why',
          },
        }),
        undefined,
      ).verdict.permission,
    ).toEqual({ decision: 'ask', reason: 'why' });
    expect(
      interpretHookResult('PreToolUse', json({ decision: 'approve' }), undefined).verdict.permission
        ?.decision,
    ).toBe('allow');
    expect(
      interpretHookResult(
        'PermissionRequest',
        json({ hookSpecificOutput: { decision: { behavior: 'deny', message: 'm' } } }),
        undefined,
      ).verdict.permission,
    ).toEqual({ decision: 'deny', reason: 'm' });
    expect(
      interpretHookResult('Stop', json({ decision: 'block', reason: 'go on' }), undefined).verdict.block,
    ).toBe('go on');
    expect(
      interpretHookResult('PostToolUse', json({ continue: false, stopReason: 'halt' }), undefined),
    ).toMatchObject({
      outcome: 'stop',
      verdict: { stop: 'halt' },
    });
    expect(
      interpretHookResult(
        'PostToolUse',
        json({ hookSpecificOutput: { additionalContext: 'ctx' }, systemMessage: 'hi' }),
        undefined,
      ),
    ).toMatchObject({ outcome: 'context', verdict: { context: ['ctx'] }, message: 'hi' });
  });

  it('plain stdout is context only for UserPromptSubmit and SessionStart', () => {
    expect(
      interpretHookResult('UserPromptSubmit', exited(0, 'branch main\n'), undefined).verdict.context,
    ).toEqual(['branch main']);
    expect(interpretHookResult('PostToolUse', exited(0, 'formatted'), undefined).verdict.context).toEqual([]);
  });

  it('a timeout, a crash or unreadable JSON follows fail: closed refuses at the gate events, open goes on', () => {
    const timeout = {
      status: 'timeout',
      message: 'timed out after 1 s',
      stderr: '',
      durationMs: 1000,
    } as const;
    expect(interpretHookResult('PreToolUse', timeout, undefined).verdict.permission?.decision).toBe('deny');
    expect(interpretHookResult('PreToolUse', timeout, 'open').verdict.permission).toBeUndefined();
    expect(interpretHookResult('UserPromptSubmit', exited(1), undefined).verdict.block).toContain(
      'exited with 1',
    );
    expect(interpretHookResult('PostToolUse', exited(1), 'closed').verdict).toEqual({ context: [] });
    expect(interpretHookResult('PreToolUse', exited(0, '{"decision": 5}'), undefined)).toMatchObject({
      outcome: 'error',
      verdict: { permission: { decision: 'deny' } },
    });
  });
});

describe('matchesTool', () => {
  it("matches all for none, '' or *; whole-name regular expressions; Claude Code's names for Skate's tools", () => {
    expect(matchesTool(undefined, 'shell')).toBe(true);
    expect(matchesTool('*', 'shell')).toBe(true);
    expect(matchesTool('Bash', 'shell')).toBe(true);
    expect(matchesTool('Edit|Write', 'write_file')).toBe(true);
    expect(matchesTool('Edit|Write', 'read_file')).toBe(false);
    expect(matchesTool('shel', 'shell')).toBe(false);
    expect(matchesTool('mcp__.*', 'mcp__memory__save')).toBe(true);
    expect(matchesTool('(', '(')).toBe(true);
  });
});
