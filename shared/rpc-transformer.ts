import { superjsonFast } from './superjson-fast.js';

/**
 * The transformer both ends use for procedure inputs, outputs and error shapes (superjson's format,
 * with plain JSON values passed straight through). On its own so the
 * harness's client takes it without tRPC's server (`trpc.ts`).
 */
export const transformer = superjsonFast;
