import { describe, expect, it } from 'vitest';
import type { ResolvedPolicy } from '../../../shared/policy.js';
import { applyRunOverrides } from '../../../shared/run-overrides.js';

const policy: ResolvedPolicy = {
  name: 'execute',
  workspace: '/ws',
  read: { allow: ['/'], deny: ['/home/u/.ssh', '/ws/**/.env'] },
  write: { allow: ['/ws', '/tmp'] },
  protected: ['/ws/.git', '/ws/.vscode'],
  network: { mode: 'off' },
  environment: { allow: ['PATH'], set: {} },
  limits: { commandTimeoutSeconds: 60, outputBytes: 1000, memoryMiB: 512, processes: 64 },
};

describe('applyRunOverrides', () => {
  it('adds a writable root with the workspace protections and denials inside it', () => {
    const wider = applyRunOverrides(policy, { addDirs: ['/srv/lib'] });
    expect(wider.write.allow).toEqual(['/ws', '/tmp', '/srv/lib']);
    expect(wider.protected).toEqual(['/ws/.git', '/ws/.vscode', '/srv/lib/.git', '/srv/lib/.vscode']);
    expect(wider.read.deny).toEqual(['/home/u/.ssh', '/ws/**/.env', '/srv/lib/**/.env']);
    expect(wider.read.allow).toEqual(['/']);
    expect(wider.network).toEqual({ mode: 'off' });
  });

  it('turns the network on or off, and leaves a directory already writable alone', () => {
    expect(applyRunOverrides(policy, { network: 'on', addDirs: ['/ws/sub'] })).toEqual({
      ...policy,
      network: { mode: 'on' },
    });
  });
});
