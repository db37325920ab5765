import { TRPCClientError, type TRPCLink } from '@trpc/client';
import { observable } from '@trpc/server/observable';
import * as z from 'zod';
import { checkToolResult } from '../../shared/check-tool-result.js';
import { executorOutputs } from '../../shared/executor-outputs.js';
import type { ExecutorRouter } from '../../shared/executor-router.js';
import type { RpcErrorShape } from '../../shared/rpc-error.js';
import { ExecutorChannelError } from './executor-errors.js';
import { onAbort as whenAborted } from './on-abort.js';
import type { RpcClient } from './rpc-client.js';

/** After a cancel, how long the executor has to report what it stopped before the call is given up. */
export const CANCEL_GRACE_MS = 5_000;

/**
 * A tRPC link that sends each operation over an `RpcClient` the moment it is
 * made, under the operation's own id. It is the client's boundary: each answer
 * is checked here, once, against its procedure's schema (`executorOutputs`),
 * and each failure becomes a `TRPCClientError` here, once: the executor's error
 * shape as tRPC's client would make it (`data.skateCode`), or an
 * `ExecutorChannelError` as its `cause`.
 *
 * Cancellation has one path: the operation's `signal`. Aborting it asks the
 * executor to cancel (a `subscription.stop` frame) and still waits for the
 * executor's answer, which reports what the tool stopped; when that answer does
 * not come within `cancelGraceMs`, the call fails with a `cancelled` channel error.
 */
export function executorLink(rpc: RpcClient, cancelGraceMs = CANCEL_GRACE_MS): TRPCLink<ExecutorRouter> {
  return () =>
    ({ op }) =>
      observable((observer) => {
        const { id, type, path, signal } = op;
        const schema: z.ZodType | undefined = executorOutputs[path as keyof typeof executorOutputs];
        let settled = false;
        let grace: NodeJS.Timeout | undefined;
        let unwatch: (() => void) | undefined;
        const onAbort = (): void => {
          rpc.cancel(id);
          grace = setTimeout(() => {
            if (settled) return;
            rpc.forget(id);
            fail(
              new ExecutorChannelError(
                'cancelled',
                `${path} was cancelled; the executor did not confirm in time`,
              ),
            );
          }, cancelGraceMs);
        };
        // Once answered, the call lets go of the caller's signal at once: tRPC's promise adapter never
        // unsubscribes after a value, and a run's one signal outlives thousands of calls (a listener
        // left per call was a leak, and made each later addEventListener walk them all).
        const release = (): void => {
          clearTimeout(grace);
          unwatch?.();
        };
        const fail = (error: ExecutorChannelError | RpcErrorShape): void => {
          if (settled && type !== 'subscription') return;
          settled = true;
          release();
          observer.error(
            error instanceof ExecutorChannelError
              ? TRPCClientError.from<ExecutorRouter>(error)
              : TRPCClientError.from<ExecutorRouter>({ error }),
          );
        };
        rpc.request(id, type, path, op.input, {
          data(value) {
            const quick = path === 'callTool' ? checkToolResult(value) : undefined;
            const checked =
              quick !== undefined
                ? { success: true as const, data: quick }
                : schema
                  ? schema.safeParse(value)
                  : { success: true as const, data: value };
            if (!checked.success) {
              rpc.forget(id);
              fail(
                new ExecutorChannelError(
                  'protocol',
                  `the executor's ${path} answer does not match its schema:\n${z.prettifyError(checked.error)}`,
                ),
              );
              return;
            }
            if (type !== 'subscription') {
              settled = true;
              release();
            }
            observer.next({ result: { type: 'data', data: checked.data } });
            // No complete() for a query or mutation: tRPC's promise adapter aborts a signal (allocating a
            // DOMException) on complete, ~10 µs a call, and the call has let go of everything already.
          },
          started() {
            observer.next({ result: { type: 'started' } });
          },
          stopped() {
            settled = true;
            release();
            observer.next({ result: { type: 'stopped' } });
            observer.complete();
          },
          error: fail,
        });
        // One run's signal is shared by all its concurrent calls (and sub-agents'): one listener serves them all.
        if (signal && !settled) unwatch = whenAborted(signal, onAbort);
        return () => {
          release();
          if (settled) return;
          // Unsubscribed before the answer (a subscription stopped by its caller): stop it on the executor too.
          settled = true;
          rpc.cancel(id);
          rpc.forget(id);
        };
      });
}
