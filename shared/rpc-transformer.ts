import superjson from 'superjson';

/**
 * The transformer both ends use for procedure inputs, outputs and error shapes. On its own so the
 * harness's client takes it without tRPC's server (`trpc.ts`).
 */
export const transformer = superjson;
