import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  ExecutorChannelError,
  executorErrorFromUnknown,
} from '../../../harness/executor-client/executor-errors.js';
import { createExecutorTrpc } from '../../../harness/executor-client/executor-trpc.js';
import { RpcClient } from '../../../harness/executor-client/rpc-client.js';
import { transformer } from '../../../shared/trpc.js';

/** A typed client whose frames go to `answer`, which plays the executor. */
function clientAnswering(answer: (request: { id: number; method: string }) => object) {
  const sent: { id: number; method: string }[] = [];
  const rpc: RpcClient = new RpcClient((frame) => {
    const request = JSON.parse(frame) as { id: number; method: string };
    sent.push(request);
    queueMicrotask(() => rpc.receive(JSON.stringify(answer(request))));
  }, 1 << 20);
  return { trpc: createExecutorTrpc(rpc), rpc, sent };
}

describe('the executor link', () => {
  it('checks each answer against its procedure schema, once, and refuses one outside it', async () => {
    const { trpc, rpc } = clientAnswering(({ id }) => ({
      id,
      result: { type: 'data', data: transformer.serialize({ output: 42 }) },
    }));
    const error = executorErrorFromUnknown(
      await trpc.callTool.mutate({ callId: 'c', name: 'noop', input: {} }).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(ExecutorChannelError);
    expect(error).toMatchObject({ code: 'protocol', message: expect.stringContaining('output') });
    expect(rpc.pendingCount).toBe(0);
  });

  it('sends each operation under the tRPC operation id, one frame per call', async () => {
    const { trpc, sent } = clientAnswering(({ id }) => ({
      id,
      result: { type: 'data', data: transformer.serialize({ output: 'ok', isError: false }) },
    }));
    await trpc.callTool.mutate({ callId: 'c1', name: 'noop', input: {} });
    await trpc.callTool.mutate({ callId: 'c2', name: 'noop', input: {} });
    expect(sent.map((frame) => [frame.id, frame.method])).toEqual([
      [1, 'mutation'],
      [2, 'mutation'],
    ]);
  });

  it("lets go of the caller's signal once answered or failed: a run's one signal outlives its calls", async () => {
    let refuse = false;
    const { trpc, sent } = clientAnswering(({ id }) =>
      refuse
        ? { id, error: transformer.serialize({ code: -32600, message: 'no', data: { code: 'BAD_REQUEST' } }) }
        : { id, result: { type: 'data', data: transformer.serialize({ output: 'ok', isError: false }) } },
    );
    const run = new AbortController();
    for (let i = 0; i < 50; i++) {
      await trpc.callTool.mutate({ callId: `c${i}`, name: 'noop', input: {} }, { signal: run.signal });
    }
    refuse = true;
    await trpc.callTool
      .mutate({ callId: 'refused', name: 'noop', input: {} }, { signal: run.signal })
      .catch(() => undefined);
    // One listener serves every call on the signal, holding none of the calls answered: aborting
    // the run now cancels nothing.
    expect(getEventListeners(run.signal, 'abort').length).toBeLessThanOrEqual(1);
    const sentBefore = sent.length;
    run.abort();
    expect(sent.slice(sentBefore)).toEqual([]);
  });

  it('cancels every call still waiting on a shared signal when it aborts, and only those', async () => {
    const { trpc, sent } = clientAnswering(({ id }) =>
      id === 1
        ? { id, result: { type: 'data', data: transformer.serialize({ output: 'ok', isError: false }) } }
        : {},
    );
    const run = new AbortController();
    await trpc.callTool.mutate({ callId: 'done', name: 'noop', input: {} }, { signal: run.signal });
    const waiting = [2, 3].map((n) =>
      trpc.callTool
        .mutate({ callId: `c${n}`, name: 'noop', input: {} }, { signal: run.signal })
        .catch((e: unknown) => e),
    );
    await new Promise((resolve) => setImmediate(resolve));
    run.abort();
    expect(sent.filter((frame) => frame.method === 'subscription.stop').map((frame) => frame.id)).toEqual([
      2, 3,
    ]);
    // An already aborted signal cancels a new call at once.
    void trpc.callTool
      .mutate({ callId: 'late', name: 'noop', input: {} }, { signal: run.signal })
      .catch(() => undefined);
    expect(sent.at(-1)).toMatchObject({ id: 4, method: 'subscription.stop' });
    void waiting;
  });
});
