import { setMaxListeners } from 'node:events';
import { TRPCClientError, type TRPCLink } from '@trpc/client';
import { observable } from '@trpc/server/observable';
import type { ExecutorRouter } from '../../shared/executor-router.js';
import type { RpcClient } from './rpc-client.js';

/**
 * Link context a caller may pass: `cancel` asks the executor to cancel the call
 * but still waits for its answer (the tool reports what it stopped), whereas
 * tRPC's own `signal` drops the call at once.
 */
export interface ExecutorLinkContext extends Record<string, unknown> {
  cancel?: AbortSignal;
}

/** A tRPC link that sends each operation over an `RpcClient` the moment it is made. */
export function executorLink(rpc: RpcClient): TRPCLink<ExecutorRouter> {
  return () =>
    ({ op }) =>
      observable((observer) => {
        let settled = false;
        const id = rpc.request(op.type, op.path, op.input, {
          data(data) {
            if (op.type !== 'subscription') settled = true;
            observer.next({ result: { type: 'data', data }, context: op.context });
            // No complete() for a query or mutation: the caller unsubscribes on the first value, and
            // tRPC's promise adapter aborts a signal (allocating a DOMException) on complete, ~10 µs a call.
            if (op.type !== 'subscription') return;
          },
          started() {
            observer.next({ result: { type: 'started' }, context: op.context });
          },
          stopped() {
            settled = true;
            observer.next({ result: { type: 'stopped' }, context: op.context });
            observer.complete();
          },
          error(error) {
            settled = true;
            observer.error(TRPCClientError.from(error));
          },
        });
        const drop = () => {
          if (settled) return;
          settled = true;
          rpc.cancel(id);
          rpc.forget(id);
        };
        const onAbort = () => {
          drop();
          observer.error(TRPCClientError.from(new DOMException('the call was aborted', 'AbortError')));
        };
        const cancel = (op.context as ExecutorLinkContext).cancel;
        const onCancel = () => rpc.cancel(id);
        // One run's signal is shared by all its concurrent calls (and sub-agents'); each adds a listener
        // for its lifetime, which is not the leak Node's default limit of 10 is there to catch.
        if (cancel) setMaxListeners(0, cancel);
        if (cancel?.aborted) onCancel();
        else cancel?.addEventListener('abort', onCancel, { once: true });
        if (op.signal?.aborted) onAbort();
        else op.signal?.addEventListener('abort', onAbort, { once: true });
        return () => {
          cancel?.removeEventListener('abort', onCancel);
          op.signal?.removeEventListener('abort', onAbort);
          drop();
        };
      });
}
