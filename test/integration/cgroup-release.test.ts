import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cgroupSupport, createCgroupLimits } from '../../harness/sandbox/cgroup-limits.js';
import type { PolicyLimits } from '../../shared/policy.js';

const LIMITS: PolicyLimits = {
  commandTimeoutSeconds: 30,
  outputBytes: 64 * 1024,
  memoryMiB: 256,
  processes: 64,
};
const noCgroups = (await cgroupSupport(LIMITS)) === 'none' ? 'cgroups are not writable here' : undefined;

describe.skipIf(noCgroups)('releasing an executor’s cgroups', () => {
  it('waits while a process is still in them, and removes them as soon as it is gone', async () => {
    const lease = await createCgroupLimits(LIMITS, `skate-${process.pid}-release-test`);
    if (!lease) throw new Error('cgroupSupport said cgroups work, but no lease was made');
    const dirs = lease.procsFiles.map((file) => path.dirname(file));
    const started = performance.now();
    const sleeper = spawn('sleep', ['0.3'], { stdio: 'ignore' });
    const exited = new Promise<number>((resolve) => sleeper.once('exit', () => resolve(performance.now())));
    for (const file of lease.procsFiles) await writeFile(file, String(sleeper.pid));

    await lease.release();
    const released = performance.now();
    // rmdir was refused until the sleeper had gone (the kernel reaps it just before Node says so),
    // and then the cgroups went, well within the second release keeps trying.
    expect(released - started).toBeGreaterThan(250);
    expect(Math.abs(released - (await exited))).toBeLessThan(500);
    for (const dir of dirs) expect(existsSync(dir)).toBe(false);
  });
});
