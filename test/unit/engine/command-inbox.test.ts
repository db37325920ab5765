import { describe, expect, it, vi } from 'vitest';
import { createCommandInbox } from '../../../harness/engine/command-inbox.js';

const signal = (): AbortSignal => new AbortController().signal;

describe('createCommandInbox', () => {
  it('resolves a waiting request by requestId', async () => {
    const { inbox, send } = createCommandInbox();
    const pending = inbox.waitFor('approval_response', 'r1', signal());
    expect(send({ type: 'approval_response', requestId: 'r1', decision: 'approve' })).toBe(true);
    await expect(pending).resolves.toEqual({
      type: 'approval_response',
      requestId: 'r1',
      decision: 'approve',
    });
  });

  it('keeps an answer that arrives before its request, for a while', async () => {
    vi.useFakeTimers();
    try {
      const { inbox, send } = createCommandInbox({ keepEarlyMs: 1_000 });
      send({ type: 'loop_decision', requestId: 'early', decision: 'stop' });
      send({ type: 'loop_decision', requestId: 'stale', decision: 'stop' });
      await expect(inbox.waitFor('loop_decision', 'early', signal())).resolves.toMatchObject({
        decision: 'stop',
      });
      vi.advanceTimersByTime(1_001);
      const late = inbox.waitFor('loop_decision', 'stale', signal());
      const settled = vi.fn();
      late.then(settled, settled);
      await Promise.resolve();
      expect(settled).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps a bounded number of early answers, dropping the oldest', async () => {
    const { inbox, send } = createCommandInbox({ maxEarly: 2 });
    for (const requestId of ['a', 'b', 'c']) send({ type: 'loop_decision', requestId, decision: 'continue' });
    const controller = new AbortController();
    const first = inbox.waitFor('loop_decision', 'a', controller.signal);
    await expect(inbox.waitFor('loop_decision', 'c', signal())).resolves.toMatchObject({ requestId: 'c' });
    controller.abort();
    await expect(first).rejects.toThrow();
  });

  it('rejects on abort and forgets the waiter', async () => {
    const handle = createCommandInbox();
    const controller = new AbortController();
    const pending = handle.inbox.waitFor('ask_user_response', 'q', controller.signal);
    expect(handle.waiting).toBe(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(handle.waiting).toBe(0);
    await expect(handle.inbox.waitFor('ask_user_response', 'q2', controller.signal)).rejects.toThrow();
  });

  it('does not route interrupts or prompts, nor answers of the wrong type', async () => {
    const handle = createCommandInbox();
    expect(handle.send({ type: 'interrupt' })).toBe(false);
    expect(handle.send({ type: 'user_prompt', text: 'hi', images: [] })).toBe(false);
    const pending = handle.inbox.waitFor('approval_response', 'x', signal());
    expect(handle.send({ type: 'loop_decision', requestId: 'x', decision: 'stop' })).toBe(false);
    expect(
      handle.send({ type: 'approval_response', requestId: 'x', decision: 'reject', feedback: 'no' }),
    ).toBe(true);
    await expect(pending).resolves.toMatchObject({ decision: 'reject', feedback: 'no' });
  });
});
