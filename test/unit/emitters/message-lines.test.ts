import { describe, expect, it } from 'vitest';
import { createMessageLines } from '../../../harness/emitters/message-lines.js';
import { MessageLine } from '../../../shared/claude-stream-lines.js';
import type { EngineEvent } from '../../../shared/engine-events.js';

const usage = (input: number) => ({
  type: 'usage' as const,
  turn: { inputTokens: input, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  total: { inputTokens: input, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  elapsedMs: 1,
  outputTokensPerSecond: 1,
});

describe("Claude Code's whole messages built from engine events", () => {
  it("keeps each agent's messages apart and names a sub-agent's spawning call as parent_tool_use_id", () => {
    const lines = createMessageLines(
      () => 'claude-sonnet-4-5',
      () => 'session-1',
    );
    const child = ['agent-1'];
    const events: EngineEvent[] = [
      { type: 'turn_start', agent: [], turn: 1 },
      { type: 'tool_call_start', agent: [], id: 'spawn', name: 'spawn_agent', args: { task: 'x' } },
      { ...usage(10), agent: [] },
      { type: 'turn_start', agent: child, turn: 1, parentCallId: 'spawn' },
      { type: 'text_done', agent: child, text: 'child working' },
      { ...usage(5), agent: child },
      { type: 'turn_end', agent: child, turn: 1, reason: 'complete' },
      {
        type: 'tool_call_result',
        agent: [],
        id: 'spawn',
        name: 'spawn_agent',
        output: '{}',
        isError: false,
        durationMs: 1,
      },
      { type: 'turn_end', agent: [], turn: 1, reason: 'complete' },
    ];
    const out = events.flatMap((event) => lines.after(event)).map((line) => MessageLine.parse(line));
    expect(out.map((line) => [line.type, line.parent_tool_use_id])).toEqual([
      ['assistant', null],
      ['assistant', 'spawn'],
      ['user', null],
    ]);
    expect(out[1]).toMatchObject({
      message: { content: [{ type: 'text', text: 'child working' }] },
      agent: child,
    });
    expect(out[2]).toMatchObject({
      session_id: 'session-1',
      message: { content: [{ type: 'tool_result', tool_use_id: 'spawn', is_error: false }] },
    });
  });

  it("drops a retried reply's discarded blocks: its calls' results arrive before its usage", () => {
    const lines = createMessageLines(
      () => 'm',
      () => undefined,
    );
    const events: EngineEvent[] = [
      { type: 'tool_call_start', agent: [], id: 'old', name: 'shell', args: {} },
      {
        type: 'tool_call_result',
        agent: [],
        id: 'old',
        name: 'shell',
        output: 'not run',
        isError: true,
        durationMs: 0,
      },
      { type: 'text_done', agent: [], text: 'retried' },
      { ...usage(1), agent: [] },
    ];
    const out = events.flatMap((event) => lines.after(event));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      type: 'assistant',
      message: { content: [{ type: 'text', text: 'retried' }] },
    });
  });
});
