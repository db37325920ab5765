import { createTRPCClient, type TRPCClient } from '@trpc/client';
import type { ExecutorRouter } from '../../shared/executor-router.js';
import { executorLink } from './executor-link.js';
import type { RpcClient } from './rpc-client.js';

/** tRPC's typed client for an executor's router: inputs and outputs are inferred from the router's type. */
export type ExecutorTrpc = TRPCClient<ExecutorRouter>;

/** The typed client over an `RpcClient`; `cancelGraceMs` is how long a cancelled call may take to confirm. */
export function createExecutorTrpc(rpc: RpcClient, cancelGraceMs?: number): ExecutorTrpc {
  return createTRPCClient<ExecutorRouter>({ links: [executorLink(rpc, cancelGraceMs)] });
}
