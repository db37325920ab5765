import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const MODULE = path.join(import.meta.dirname, '../../../dist/harness/network/sandbox-network.js');

/**
 * A harness that exits without releasing its sandbox's network (the terminal UI closed by SIGHUP
 * exits from its signal handler) must not leave its directory, CA copy and proxy socket in /tmp:
 * they had piled up, one per closed terminal.
 */
describe('a sandbox network directory', () => {
  it('is removed when the process exits without releasing it, allowlist proxy and all', () => {
    const script = `
      const { prepareSandboxNetwork } = await import(${JSON.stringify(MODULE)});
      const policy = {
        name: 'test', workspace: '/tmp', read: { allow: ['/'], deny: [] }, write: { allow: [] },
        protected: [], environment: { allow: [], set: {} },
        limits: { commandTimeoutSeconds: 30, outputBytes: 1024, memoryMiB: 256, processes: 16 },
      };
      const on = await prepareSandboxNetwork({ ...policy, network: { mode: 'on' } });
      const listed = await prepareSandboxNetwork({
        ...policy, network: { mode: 'allowlist', allow: ['example.com'], deny: [] },
      });
      const released = await prepareSandboxNetwork({ ...policy, network: { mode: 'on' } });
      await released.release();
      console.log(JSON.stringify([on.steps[0].src, listed.steps[0].src, released.steps[0].src]));
      process.exit(0);
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    const dirs = JSON.parse(child.stdout) as string[];
    expect(dirs).toHaveLength(3);
    for (const dir of dirs) {
      expect(path.basename(dir)).toMatch(/^skate-net-/);
      expect(existsSync(dir), dir).toBe(false);
    }
  });
});
