import { describe, expect, it } from 'vitest';
import type { ScriptedTurn } from '../../support/scripted-provider.js';
import { fakeTool, runEngine } from './engine-harness.js';

const toolTurn = (id: string): ScriptedTurn => ({
  steps: [{ type: 'tool_call', id, name: 'noop', input: {} }],
});

describe('Engine: loop cap', () => {
  it('asks after maxTurns turns and goes on for another maxTurns on "continue"', async () => {
    const decisions = ['continue', 'stop'] as const;
    let asked = 0;
    const { outcome, events } = await runEngine({
      turns: [toolTurn('t1'), toolTurn('t2'), toolTurn('t3'), toolTurn('t4'), toolTurn('t5')],
      tools: [fakeTool('noop', 'read')],
      request: { maxTurns: 2 },
      onEvent: (event, { inbox }) => {
        if (event.type !== 'loop_cap_reached') return;
        const decision = decisions[asked++]!;
        // Answer later, as a person would, to exercise the waiting path.
        setTimeout(() => inbox.send({ type: 'loop_decision', requestId: event.requestId, decision }), 5);
      },
    });
    expect(outcome).toMatchObject({ status: 'loop_cap', turns: 4, toolCalls: 4 });
    expect(events.ofType('loop_cap_reached').map((event) => event.iterations)).toEqual([2, 4]);
    expect(events.ofType('turn_start')).toHaveLength(4);
    // The run stops between turns: the last turn ended normally, with its results in.
    expect(events.events.at(-1)).toMatchObject({ type: 'loop_cap_reached' });
    expect(outcome.messages.at(-1)?.content[0]).toMatchObject({ type: 'tool_result', callId: 't4' });
  });

  it('stops at once on "stop", even when the answer came before the engine waited', async () => {
    const { outcome } = await runEngine({
      turns: [toolTurn('t1'), toolTurn('t2')],
      tools: [fakeTool('noop', 'read')],
      request: { maxTurns: 1 },
      onEvent: (event, { inbox }) => {
        // Synchronous: the answer reaches the inbox before waitFor is called.
        if (event.type === 'loop_cap_reached') {
          inbox.send({ type: 'loop_decision', requestId: event.requestId, decision: 'stop' });
        }
      },
    });
    expect(outcome).toMatchObject({ status: 'loop_cap', turns: 1 });
  });

  it('does not ask when the model finishes within the cap', async () => {
    const { outcome, events } = await runEngine({
      turns: [toolTurn('t1'), { steps: [{ type: 'text', text: 'done' }] }],
      tools: [fakeTool('noop', 'read')],
      request: { maxTurns: 2 },
    });
    expect(outcome.status).toBe('complete');
    expect(events.ofType('loop_cap_reached')).toHaveLength(0);
  });

  it('ends cancelled when interrupted while waiting for the decision', async () => {
    const { outcome } = await runEngine({
      turns: [toolTurn('t1')],
      tools: [fakeTool('noop', 'read')],
      request: { maxTurns: 1 },
      onEvent: (event, control) => {
        if (event.type === 'loop_cap_reached') setTimeout(() => control.abort(), 5);
      },
    });
    expect(outcome.status).toBe('cancelled');
  });
});
