import type { ResolvedPolicy } from '../../shared/policy.js';

/** A permissive policy for one workspace: read everything, write the workspace and /tmp. */
export function testPolicy(workspace: string, overrides: Partial<ResolvedPolicy> = {}): ResolvedPolicy {
  return {
    name: 'test',
    workspace,
    read: { allow: ['/'], deny: [] },
    write: { allow: [workspace] },
    protected: [],
    network: { mode: 'off' },
    environment: { allow: ['PATH', 'HOME', 'LANG', 'TERM'], set: {} },
    limits: { commandTimeoutSeconds: 30, outputBytes: 256 * 1024, memoryMiB: 2048, processes: 256 },
    ...overrides,
  };
}
