import { describe, expect, it } from 'vitest';
import { BackgroundAgents, type BackgroundEnding } from '../../../harness/agents/background-agents.js';
import type { EngineEvent } from '../../../shared/engine-events.js';

/** A child that ends when told to, or `cancelled` when its signal aborts. */
function controllable(): {
  run(signal: AbortSignal, observe: (event: EngineEvent) => void): Promise<BackgroundEnding>;
  finish(output: string): void;
  observe?: (event: EngineEvent) => void;
} {
  let finish: (output: string) => void = () => {};
  const child = {
    run(signal: AbortSignal, observe: (event: EngineEvent) => void): Promise<BackgroundEnding> {
      child.observe = observe;
      return new Promise((resolve) => {
        finish = (output) => resolve({ result: { output, isError: false } });
        signal.addEventListener('abort', () =>
          resolve({
            result: { output: 'cancelled', isError: true, code: 'cancelled' },
            failure: 'cancelled',
          }),
        );
      });
    },
    finish: (output: string) => finish(output),
    observe: undefined as ((event: EngineEvent) => void) | undefined,
  };
  return child;
}

describe('BackgroundAgents', () => {
  it('tracks a child live, refuses past its limit, and delivers its result once', async () => {
    const registry = new BackgroundAgents(1);
    const one = controllable();
    const id = registry.nextId();
    registry.start({ id, agent: [id], task: 'count', callId: 'c1', run: one.run });
    one.observe?.({ type: 'turn_start', agent: [id], turn: 2 });
    one.observe?.({ type: 'tool_call_start', agent: [id], id: 't', name: 'shell', args: {} });
    // Another agent's events do not count as its own.
    one.observe?.({ type: 'turn_start', agent: [id, 'agent-1'], turn: 9 });
    expect(registry.status()).toMatchObject([
      { id: 'bg-1', state: 'running', turns: 2, current_tool: 'shell' },
    ]);
    expect(registry.refusal()).toContain('the most allowed at once');
    expect(registry.take()).toEqual([]);
    one.finish('{"ok":true}');
    await registry.idle();
    expect(registry.refusal()).toBeUndefined();
    const taken = registry.take();
    expect(taken).toHaveLength(1);
    expect(taken[0]).toContain('background sub-agent bg-1 completed');
    expect(taken[0]).toContain('{"ok":true}');
    expect(registry.take()).toEqual([]);
  });

  it('agent_wait returns what ended and what still runs at the timeout; what it returned is not delivered again', async () => {
    const registry = new BackgroundAgents(4);
    const fast = controllable();
    const slow = controllable();
    registry.start({ id: registry.nextId(), agent: ['bg-1'], task: 'a', callId: 'c1', run: fast.run });
    registry.start({ id: registry.nextId(), agent: ['bg-2'], task: 'b', callId: 'c2', run: slow.run });
    fast.finish('A');
    const waited = await registry.wait([], 50, new AbortController().signal);
    expect(waited.ended.map((e) => e.status.id)).toEqual(['bg-1']);
    expect(waited.running.map((s) => s.id)).toEqual(['bg-2']);
    expect(registry.take()).toEqual([]);
    await registry.close();
    expect(registry.status().map((s) => [s.id, s.state])).toEqual([
      ['bg-1', 'completed'],
      ['bg-2', 'failed'],
    ]);
    expect(registry.status(['bg-2'])[0]).toMatchObject({ failure: 'cancelled' });
    expect(registry.refusal()).toBe('the session is closing');
  });

  it('settle waits for the next child when asked to, and gives up when the run is cancelled', async () => {
    const registry = new BackgroundAgents(4);
    const child = controllable();
    registry.start({ id: registry.nextId(), agent: ['bg-1'], task: 'a', callId: 'c1', run: child.run });
    expect(await registry.settle(new AbortController().signal, false)).toEqual([]);
    const settling = registry.settle(new AbortController().signal, true);
    child.finish('done');
    expect((await settling)[0]).toContain('done');
    const other = controllable();
    registry.start({ id: registry.nextId(), agent: ['bg-2'], task: 'b', callId: 'c2', run: other.run });
    const stop = new AbortController();
    const cancelled = registry.settle(stop.signal, true);
    stop.abort();
    expect(await cancelled).toEqual([]);
    await registry.close();
  });
});
