import { describe, expect, it } from 'vitest';
import { type ManifestInputs, manifestMemory } from '../../../harness/mcp/mcp-manifest-memory.js';
import { tempDir } from '../../support/temp-dir.js';

const inputs: ManifestInputs = { name: 'broken', command: 'node', args: ['server.js'], env: {}, policy: {} };
const tool = {
  name: 'echo',
  description: 'Echoes.',
  effect: 'read' as const,
  inputSchema: { type: 'object' as const, properties: {} },
};

describe('manifestMemory', () => {
  it('remembers a failed start (why and when) per fingerprint, until a manifest replaces it or it is forgotten', async () => {
    await using dir = await tempDir('manifest-memory-');
    const memory = manifestMemory(inputs, dir.path);
    expect(await memory.recallFailure()).toBeUndefined();
    memory.rememberFailure('exited with code 3', new Date('2026-11-26T12:00:00Z'));
    expect(await memory.recallFailure()).toEqual({
      reason: 'exited with code 3',
      at: '2026-11-26T12:00:00.000Z',
    });
    expect(await memory.recall()).toBeUndefined();
    // Another configuration of the same server remembers nothing of it.
    const changed = manifestMemory({ ...inputs, args: ['server.js', '--fixed'] }, dir.path);
    expect(await changed.recallFailure()).toBeUndefined();
    // A start that lists tools replaces the failure.
    memory.remember([tool]);
    expect(await memory.recallFailure()).toBeUndefined();
    expect(await memory.recall()).toEqual([tool]);
    // Forgetting a failure leaves a manifest alone; a failure forgotten is gone.
    await memory.forgetFailure();
    expect(await memory.recall()).toEqual([tool]);
    memory.rememberFailure('timed out');
    await memory.forgetFailure();
    expect(await memory.recallFailure()).toBeUndefined();
  });
});
