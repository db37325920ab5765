import { describe, expect, it } from 'vitest';
import {
  createExecutorRouter,
  type ExecutorProcedures,
  servedExecutorProcedures,
} from '../../../shared/executor-router.js';

const impl: ExecutorProcedures = {
  listTools: async () => [],
  callTool: async (request) => ({ output: request.name, isError: false }),
  async *toolOutput() {},
  health: () => {
    throw new Error('not called');
  },
  shutdown: () => ({ ok: true }),
};

describe('the procedures RpcServer serves', () => {
  it('are the tRPC router’s procedures, of the same kinds', () => {
    const served = servedExecutorProcedures(impl);
    const router = createExecutorRouter(impl);
    const kinds = (procedures: Record<string, { type: string } | { _def: { type: string } }>) =>
      Object.fromEntries(
        Object.entries(procedures).map(([path, p]) => [path, 'type' in p ? p.type : p._def.type]),
      );
    expect(kinds(served)).toEqual(kinds(router._def.procedures as never));
  });

  it('parse and run as the router does', async () => {
    const served = servedExecutorProcedures(impl);
    const caller = createExecutorRouter(impl).createCaller({});
    const request = { callId: 'c', name: 'read_file', input: { path: 'a' } };
    const input = await served.callTool!.input!(request);
    expect(await served.callTool!.run(input, undefined)).toEqual(await caller.callTool(request));
    const bad = { callId: '', name: 'x', input: {} };
    const refusal = await Promise.resolve()
      .then(() => served.callTool!.input!(bad))
      .catch((error: Error) => error.message);
    await expect(caller.callTool(bad)).rejects.toThrow(refusal as string);
    expect(refusal).toContain('callId');
  });
});
