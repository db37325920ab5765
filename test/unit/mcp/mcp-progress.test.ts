import { describe, expect, it, vi } from 'vitest';
import { OutputHub } from '../../../executor/output-hub.js';
import { createUpdateMapper } from '../../../harness/acp/update-mapper.js';
import type { MetaToolCall } from '../../../harness/engine/engine-types.js';
import { watchLate } from '../../../harness/executor-client/late-output.js';
import { withProgress } from '../../../harness/mcp/mcp-progress.js';
import { applyEngineEvents } from '../../../harness/tui/apply-engine-events.js';
import { renderBlockLines } from '../../../harness/tui/render/block-lines.js';
import { initialUiState } from '../../../harness/tui/ui-state.js';
import type { EngineEvent } from '../../../shared/engine-events.js';
import { latestEvery } from '../../../shared/latest-every.js';
import type { OutputLine } from '../../../shared/tool.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('latestEvery', () => {
  it('delivers the first value at once, then only the latest of each interval, and nothing after stop', async () => {
    const got: number[] = [];
    const throttle = latestEvery<number>(50, (value) => got.push(value));
    for (let i = 1; i <= 1000; i++) throttle.push(i);
    expect(got).toEqual([1]);
    await sleep(200);
    expect(got).toEqual([1, 1000]);
    throttle.push(1001);
    throttle.push(1002);
    throttle.stop();
    await sleep(80);
    expect(got.length).toBeLessThanOrEqual(3);
    expect(got).not.toContain(1002);
  });
});

describe('watchLate', () => {
  it('never starts for a call that ends before the delay, and stops the watch of one that ran long', async () => {
    const started = vi.fn(() => vi.fn());
    watchLate(started, 30)();
    await sleep(50);
    expect(started).not.toHaveBeenCalled();
    const stopWatch = vi.fn();
    const stop = watchLate(() => stopWatch, 10);
    await sleep(150);
    stop();
    expect(stopWatch).toHaveBeenCalledOnce();
  });
});

describe('OutputHub', () => {
  it('keeps only the latest unread progress line of a call, so a late subscriber gets it at once; other lines are kept', async () => {
    const hub = new OutputHub();
    const emit = hub.open('c1');
    emit('stdout', 'a line');
    for (let i = 1; i <= 10_000; i++) emit('progress', `${i}/10000`);
    const controller = new AbortController();
    const lines: string[] = [];
    const reading = (async () => {
      for await (const line of hub.subscribe('c1', controller.signal))
        lines.push(`${line.stream} ${line.text}`);
    })();
    await sleep(10);
    expect(lines).toEqual(['stdout a line', 'progress 10000/10000']);
    hub.close('c1');
    await reading;
  });
});

describe('withProgress', () => {
  it('shows progress as tool_output_line events: one bounded line each, at most ten a second, none after the result', async () => {
    const events: EngineEvent[] = [];
    const call = {
      callId: 'toolu_1',
      agent: ['agent-1'],
      emit: (event: EngineEvent) => events.push(event),
    } as unknown as MetaToolCall;
    const flood = (onOutput: (line: OutputLine) => void, from: number) => {
      for (let i = from; i < from + 5000; i++)
        onOutput({ callId: 'x', stream: 'progress', text: `${i} line\nbreak${'x'.repeat(500)}` });
    };
    const started = performance.now();
    const result = await withProgress(call, async (onOutput) => {
      flood(onOutput, 0);
      await sleep(250);
      // A flood just before the result: what of it is still pending is never shown.
      flood(onOutput, 5000);
      return { output: 'ok', isError: false };
    });
    const elapsed = performance.now() - started;
    const atResult = events.length;
    await sleep(250);
    expect(result.output).toBe('ok');
    expect(events.length).toBe(atResult);
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.length).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 1);
    for (const event of events) {
      expect(event).toMatchObject({
        type: 'tool_output_line',
        agent: ['agent-1'],
        id: 'toolu_1',
        stream: 'progress',
      });
      const text = (event as { text: string }).text;
      expect(text).not.toContain('\n');
      expect(text.length).toBeLessThanOrEqual(241);
    }
  });
});

describe('progress in the frontends', () => {
  const start: EngineEvent = { type: 'tool_call_start', agent: [], id: 't1', name: 'mcp__s__copy', args: {} };
  const line = (text: string): EngineEvent => ({
    type: 'tool_output_line',
    agent: [],
    id: 't1',
    stream: 'progress',
    text,
  });

  it('the terminal UI shows the latest on the running call line, inert', () => {
    const state = applyEngineEvents(
      initialUiState({ now: 0, columns: 80, rows: 24, model: 'm' }),
      [start, line('1/5 one'), line('3/5 \x1b]0;title\x07three')],
      0,
    );
    const block = state.blocks.find((b) => b.kind === 'tool');
    expect(block?.kind === 'tool' && block.streamed).toEqual([]);
    const [head] = renderBlockLines(block!, { width: 80, expanded: false, now: 2000 });
    expect(head).toContain('3/5 ␛]0;title␇three');
    expect(head).not.toContain('1/5');
    expect(head).not.toContain('\x1b]');
  });

  it('ACP sends each as the running call’s content, the latest replacing the one before', () => {
    let now = 0;
    const mapper = createUpdateMapper({
      workspace: '/w',
      asksApproval: () => false,
      notices: false,
      clock: () => (now += 1),
    });
    mapper.map(start);
    const updates = [line('1/5 one'), line('2/5 two')].flatMap((event) => mapper.map(event));
    expect(updates).toHaveLength(2);
    expect(updates[1]).toMatchObject({
      sessionUpdate: 'tool_call_update',
      status: 'in_progress',
      content: [{ type: 'content', content: { type: 'text', text: '2/5 two' } }],
    });
  });
});
