import { describe, expect, it } from 'vitest';
import { aborted, expectPairsIntact, fakeTool, recordingLog, runEngine } from './engine-harness.js';

describe('Engine: interrupts', () => {
  it('keeps the partial text when interrupted mid-stream', async () => {
    const log = recordingLog();
    const { outcome, events } = await runEngine({
      turns: [{ steps: [{ type: 'text', text: 'I was saying' }, { type: 'pause' }] }],
      log,
      onEvent: (event, control) => {
        if (event.type === 'text_delta') control.abort();
      },
    });
    expect(outcome).toMatchObject({ status: 'cancelled', finalMessage: 'I was saying', turns: 1 });
    expect(outcome.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'I was saying' }],
    });
    expect(events.events.at(-1)).toEqual({ type: 'turn_end', agent: [], turn: 1, reason: 'cancelled' });
    expect(events.ofType('error')).toHaveLength(0);
    expect(log.entries.map((entry) => entry.kind)).toEqual(['userMessage', 'assistantMessage']);
  });

  it('cancels every running tool and leaves a result for each call', async () => {
    const signals: AbortSignal[] = [];
    const slow = fakeTool('shell', 'read', async (_input, { signal }) => {
      if (signal) signals.push(signal);
      await aborted(signal);
      return { output: 'shell was cancelled', isError: true, code: 'cancelled' };
    });
    const { outcome, events, host, provider } = await runEngine({
      turns: [
        {
          steps: [
            { type: 'tool_call', id: 'a', name: 'shell', input: { command: 'sleep 100' } },
            { type: 'tool_call', id: 'b', name: 'shell', input: { command: 'sleep 200' } },
          ],
        },
        { steps: [{ type: 'text', text: 'never asked' }] },
      ],
      tools: [slow],
      onEvent: (event, control) => {
        // Both calls are running once the second has started; interrupt then.
        if (event.type === 'tool_call_start' && event.id === 'b') setTimeout(() => control.abort(), 10);
      },
    });
    expect(outcome).toMatchObject({ status: 'cancelled', toolCalls: 2 });
    expect(signals).toHaveLength(2);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect(host.running).toBe(0);
    expect(provider.requests).toHaveLength(1);
    expect(outcome.messages.at(-1)?.content).toEqual([
      { type: 'tool_result', callId: 'a', output: 'shell was cancelled', isError: true },
      { type: 'tool_result', callId: 'b', output: 'shell was cancelled', isError: true },
    ]);
    expectPairsIntact(outcome.messages);
    expect(events.events.at(-1)).toMatchObject({ type: 'turn_end', reason: 'cancelled' });
  });

  it('gives a call still waiting for approval a "not run" result when interrupted', async () => {
    const { outcome, events, host } = await runEngine({
      turns: [{ steps: [{ type: 'tool_call', id: 'w', name: 'write_file', input: { path: 'a' } }] }],
      tools: [fakeTool('write_file', 'write')],
      request: { approval: 'ask' },
      onEvent: (event, control) => {
        if (event.type === 'approval_request') control.abort();
      },
    });
    expect(outcome.status).toBe('cancelled');
    expect(host.calls).toHaveLength(0);
    expect(events.first('tool_call_result')).toMatchObject({
      code: 'cancelled',
      output: expect.stringMatching(/not run/),
    });
    expectPairsIntact(outcome.messages);
  });
});
