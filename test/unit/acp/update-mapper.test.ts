import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../executor/fs/text-diff.js';
import { OUTPUT_PREVIEW_CHARS } from '../../../harness/acp/tool-call-view.js';
import { createUpdateMapper } from '../../../harness/acp/update-mapper.js';
import type { EngineEvent } from '../../../shared/engine-events.js';

const WS = '/work/project';
const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
const usageEvent = (agent: string[] = []): EngineEvent => ({
  type: 'usage',
  agent,
  turn: usage,
  total: usage,
  elapsedMs: 1,
  outputTokensPerSecond: 1,
});

/** A mapper whose clock moves `stepMs` at each reading (output updates are sent at most every 100 ms). */
function mapperFor(asks: string[] = [], notices = false, stepMs = 1000) {
  let now = 0;
  return createUpdateMapper({
    workspace: WS,
    asksApproval: (name) => asks.includes(name),
    notices,
    clock: () => (now += stepMs),
  });
}

function mapAll(mapper: ReturnType<typeof mapperFor>, events: EngineEvent[]): SessionUpdate[] {
  return events.flatMap((event) => mapper.map(event));
}

describe('createUpdateMapper', () => {
  it('streams the main agent text and thinking as message and thought chunks', () => {
    const updates = mapAll(mapperFor(), [
      { type: 'thinking_delta', agent: [], text: 'hm' },
      { type: 'text_delta', agent: [], text: 'Hello' },
      { type: 'text_done', agent: [], text: 'Hello' },
      { type: 'text_delta', agent: ['agent-1'], text: 'child text' },
    ]);
    expect(updates).toEqual([
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hm' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } },
    ]);
  });

  it('shows a read as pending, in progress once the reply is complete, then completed with its location', () => {
    const mapper = mapperFor();
    const updates = mapAll(mapper, [
      {
        type: 'tool_call_start',
        agent: [],
        id: 'tu_1',
        name: 'read_file',
        args: { path: 'src/a.ts', offset: 10 },
      },
      usageEvent(),
      {
        type: 'tool_call_result',
        agent: [],
        id: 'tu_1',
        name: 'read_file',
        output: '10\tconst a = 1;',
        isError: false,
        durationMs: 2,
      },
    ]);
    expect(updates[0]).toMatchObject({
      sessionUpdate: 'tool_call',
      toolCallId: 'tu_1',
      title: 'Read src/a.ts',
      kind: 'read',
      status: 'pending',
      locations: [{ path: `${WS}/src/a.ts`, line: 10 }],
      rawInput: { path: 'src/a.ts', offset: 10 },
    });
    expect(updates[1]).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'tu_1',
      status: 'in_progress',
    });
    expect(updates[2]).toMatchObject({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'tu_1',
      status: 'completed',
    });
    expect(JSON.stringify(updates[2])).toContain('const a = 1;');
  });

  it("carries a sub-agent's dispatch record and typed failure on its spawn_agent call's result", () => {
    const mapper = mapperFor();
    const record = {
      agent_id: 'agent-1',
      status: 'failed' as const,
      failure: 'budget_exceeded' as const,
      turns: 1,
      tool_calls: 0,
      input_tokens: 10,
      output_tokens: 1,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      tokens: 11,
      invalid_schema_retries: 0,
      approval_loops: 0,
      wall_ms: 3,
      prefix_sha256: 'b'.repeat(64),
    };
    const updates = mapAll(mapper, [
      { type: 'tool_call_start', agent: [], id: 's1', name: 'spawn_agent', args: { task: 't' } },
      { type: 'dispatch_end', agent: ['agent-1'], parentCallId: 's1', record },
      {
        type: 'tool_call_result',
        agent: [],
        id: 's1',
        name: 'spawn_agent',
        output: 'sub-agent failed (budget_exceeded): over',
        isError: true,
        code: 'failed',
        durationMs: 1,
      },
    ]);
    expect(updates.at(-1)).toMatchObject({
      sessionUpdate: 'tool_call_update',
      toolCallId: 's1',
      status: 'failed',
      rawOutput: { failure: 'budget_exceeded', dispatch: record },
    });
  });

  it('gives kinds by tool: search, edit, execute, think, other', () => {
    const kinds = mapAll(
      mapperFor(),
      ['grep', 'glob', 'write_file', 'edit_file', 'shell', 'spawn_agent', 'js_eval', 'brand_new'].map(
        (name, i): EngineEvent => ({ type: 'tool_call_start', agent: [], id: `t${i}`, name, args: {} }),
      ),
    ).map((update) => (update.sessionUpdate === 'tool_call' ? update.kind : undefined));
    expect(kinds).toEqual(['search', 'search', 'edit', 'edit', 'execute', 'think', 'other', 'other']);
  });

  it('shows an edit as its old and new text before it runs, and as the hunks the executor reports after', () => {
    const mapper = mapperFor(['edit_file']);
    const before = 'one\ntwo\nthree\n';
    const after = 'one\nTWO\nthree\n';
    const display = {
      type: 'diff' as const,
      path: 'notes.txt',
      ...unifiedDiff('notes.txt', before, after),
      created: false,
    };
    const updates = mapAll(mapper, [
      {
        type: 'tool_call_start',
        agent: [],
        id: 'tu_e',
        name: 'edit_file',
        args: { path: 'notes.txt', old_string: 'two', new_string: 'TWO' },
      },
      usageEvent(),
    ]);
    expect(updates).toHaveLength(1); // waits for its approval: still pending
    expect(updates[0]).toMatchObject({
      kind: 'edit',
      status: 'pending',
      content: [{ type: 'diff', path: `${WS}/notes.txt`, oldText: 'two', newText: 'TWO' }],
    });
    // What a permission request shows of the call.
    expect(mapper.toolCall('tu_e', [])).toEqual({
      toolCallId: 'tu_e',
      title: 'Edit notes.txt',
      kind: 'edit',
      status: 'pending',
    });
    expect(mapper.running('tu_e', [])).toEqual([
      { sessionUpdate: 'tool_call_update', toolCallId: 'tu_e', status: 'in_progress' },
    ]);
    const [done] = mapper.map({
      type: 'tool_call_result',
      agent: [],
      id: 'tu_e',
      name: 'edit_file',
      output: `edited notes.txt\n\n${display.diff}`,
      isError: false,
      display,
      durationMs: 3,
    });
    expect(done).toMatchObject({
      status: 'completed',
      content: [
        { type: 'diff', path: `${WS}/notes.txt`, oldText: 'one\ntwo\nthree', newText: 'one\nTWO\nthree' },
      ],
    });
  });

  it('shows a created file as a diff from nothing', () => {
    const mapper = mapperFor();
    mapper.map({
      type: 'tool_call_start',
      agent: [],
      id: 'w',
      name: 'write_file',
      args: { path: 'new.txt', content: 'hi\n' },
    });
    const display = {
      type: 'diff' as const,
      path: 'new.txt',
      ...unifiedDiff('new.txt', '', 'hi\n'),
      created: true,
    };
    const [done] = mapper.map({
      type: 'tool_call_result',
      agent: [],
      id: 'w',
      name: 'write_file',
      output: 'created new.txt',
      isError: false,
      display,
      durationMs: 1,
    });
    expect(done).toMatchObject({
      content: [{ type: 'diff', path: `${WS}/new.txt`, oldText: null, newText: 'hi' }],
    });
  });

  it('streams shell output as a growing code block and ends failed on a non-zero exit', () => {
    const mapper = mapperFor();
    const updates = mapAll(mapper, [
      { type: 'tool_call_start', agent: [], id: 's', name: 'shell', args: { command: 'make test' } },
      usageEvent(),
      { type: 'tool_output_line', agent: [], id: 's', stream: 'stdout', text: 'line 1' },
      { type: 'tool_output_line', agent: [], id: 's', stream: 'stderr', text: 'line ```2' },
      {
        type: 'tool_call_result',
        agent: [],
        id: 's',
        name: 'shell',
        output: 'line 1\nline ```2\n[exit code 2]',
        isError: true,
        code: 'failed',
        durationMs: 5,
      },
    ]);
    expect(updates[0]).toMatchObject({ title: 'Run `make test`', kind: 'execute' });
    const streamed = updates[3];
    expect(streamed).toMatchObject({ status: 'in_progress' });
    // The fence is longer than any run of backticks in the output.
    expect(streamed).toMatchObject({
      content: [{ type: 'content', content: { type: 'text', text: '````\nline 1\nline ```2\n````' } }],
    });
    expect(updates[4]).toMatchObject({ status: 'failed', rawOutput: { isError: true, code: 'failed' } });
  });

  it("sends a chatty command's output at most every 100 ms, and only its end when long", () => {
    const mapper = mapperFor([], false, 10);
    mapper.map({ type: 'tool_call_start', agent: [], id: 's', name: 'shell', args: { command: 'yes' } });
    const line = 'y'.repeat(99);
    const sent = Array.from({ length: 1000 }, () =>
      mapper.map({ type: 'tool_output_line', agent: [], id: 's', stream: 'stdout', text: line }),
    ).flat();
    // 1000 lines 10 ms apart: one update per 100 ms, not one per line.
    expect(sent.length).toBeGreaterThanOrEqual(99);
    expect(sent.length).toBeLessThanOrEqual(101);
    const last = JSON.stringify(sent.at(-1));
    expect(last).toContain('…');
    expect(last.length).toBeLessThan(OUTPUT_PREVIEW_CHARS + 500);
  });

  it('names sub-agents in their calls and keeps their ids apart from the parent', () => {
    const mapper = mapperFor();
    const [update] = mapper.map({
      type: 'tool_call_start',
      agent: ['agent-1'],
      id: 'tu_1',
      name: 'read_file',
      args: { path: 'x' },
    });
    expect(update).toMatchObject({ toolCallId: 'agent-1/tu_1', title: 'agent-1: Read x' });
    // The parent's usage does not start the child's calls.
    expect(mapper.map(usageEvent())).toEqual([]);
    expect(mapper.map(usageEvent(['agent-1']))).toHaveLength(1);
  });

  it('fails the calls a turn left open, and reports context use and warnings', () => {
    const mapper = mapperFor([], true);
    mapper.map({ type: 'tool_call_start', agent: [], id: 'a', name: 'shell', args: { command: 'x' } });
    expect(mapper.closeOpen()).toMatchObject([{ toolCallId: 'a', status: 'failed' }]);
    expect(mapper.closeOpen()).toEqual([]);
    expect(mapper.map({ type: 'context_usage', agent: [], usedTokens: 10, windowTokens: 200 })).toEqual([
      { sessionUpdate: 'usage_update', used: 10, size: 200 },
    ]);
    expect(mapper.map({ type: 'warn', agent: [], message: 'cut off' })).toEqual([
      { sessionUpdate: 'notice', severity: 'warning', title: 'cut off' },
    ]);
    expect(mapperFor().map({ type: 'warn', agent: [], message: 'cut off' })[0]).toMatchObject({
      sessionUpdate: 'agent_thought_chunk',
    });
  });

  it('finds the open ask_user call of an agent', () => {
    const mapper = mapperFor();
    mapper.map({ type: 'tool_call_start', agent: [], id: 'q', name: 'ask_user', args: { questions: [] } });
    expect(mapper.openAskUser([])).toBe('q');
    expect(mapper.openAskUser(['agent-1'])).toBeUndefined();
  });
});
