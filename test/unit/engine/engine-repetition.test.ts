import { describe, expect, it } from 'vitest';
import type { ScriptedTurn } from '../../support/scripted-provider.js';
import { expectPairsIntact, fakeTool, runEngine } from './engine-harness.js';

const readTurn = (
  id: string,
  input: Record<string, unknown> = { path: 'a.txt', limit: 10 },
): ScriptedTurn => ({
  steps: [{ type: 'tool_call', id, name: 'read_file', input }],
});
const done: ScriptedTurn = { steps: [{ type: 'text', text: 'done' }] };
const reads = (n: number, from = 1): ScriptedTurn[] =>
  Array.from({ length: n }, (_, i) => readTurn(`t${from + i}`));

describe('Engine: repetition', () => {
  it('tells the model on the 5th identical call and result, and stops the run on the 6th', async () => {
    const { outcome, events, host } = await runEngine({
      turns: [...reads(8), done],
      tools: [fakeTool('read_file', 'read', () => ({ output: 'same content', isError: false }))],
    });
    expect(outcome).toMatchObject({ status: 'repetition', turns: 6, toolCalls: 6 });
    expect(outcome.error).toContain('read_file');
    expect(host.calls).toHaveLength(6);
    // The model read the notice in the 5th result, and only there.
    const results = outcome.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result'));
    expect(results.map((r) => r.output.includes('change your approach'))).toEqual([
      false,
      false,
      false,
      false,
      true,
      false,
    ]);
    expect(results[4]?.output).toMatch(
      /^same content\n\n\[Skate: .*5 times in a row.*One more identical call/s,
    );
    expect(events.ofType('warn')).toEqual([
      expect.objectContaining({ message: expect.stringContaining('5 times') }),
    ]);
    expect(events.ofType('error')).toEqual([expect.objectContaining({ code: 'repetition' })]);
    expectPairsIntact(outcome.messages);
  });

  it('lets a model that changes approach after the warning carry on', async () => {
    const { outcome, events } = await runEngine({
      turns: [...reads(5), readTurn('t6', { path: 'b.txt' }), ...reads(3, 7), done],
      tools: [fakeTool('read_file', 'read', () => ({ output: 'same content', isError: false }))],
    });
    expect(outcome).toMatchObject({ status: 'complete', turns: 10 });
    expect(events.ofType('error')).toHaveLength(0);
  });

  it('counts the same input with its keys in another order as the same call', async () => {
    const { outcome } = await runEngine({
      turns: Array.from({ length: 6 }, (_, i) =>
        readTurn(`t${i}`, i % 2 ? { path: 'a.txt', limit: 10 } : { limit: 10, path: 'a.txt' }),
      ),
      tools: [fakeTool('read_file', 'read', () => ({ output: 'same', isError: false }))],
    });
    expect(outcome.status).toBe('repetition');
  });

  it('never stops a call whose result changes (polling a command that makes progress)', async () => {
    let n = 0;
    const { outcome, events } = await runEngine({
      turns: [...reads(12), done],
      tools: [fakeTool('read_file', 'read', () => ({ output: `line ${++n}`, isError: false }))],
    });
    expect(outcome).toMatchObject({ status: 'complete', turns: 13 });
    expect(events.ofType('warn')).toHaveLength(0);
  });

  it('takes its thresholds from the engine options', async () => {
    const { outcome } = await runEngine({
      turns: [...reads(4), done],
      tools: [fakeTool('read_file', 'read', () => ({ output: 'same', isError: false }))],
      engine: { repetition: { warnAt: 2, stopAt: 4 } },
    });
    expect(outcome).toMatchObject({ status: 'repetition', turns: 4 });
    const results = outcome.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result'));
    expect(results[1]?.output).toContain('2 more identical calls will stop the run');
  });
});
