import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PolicyLimits } from '../../shared/policy.js';

export type ResourceLimits = 'cgroup-v1' | 'cgroup-v2' | 'none';

/** Cgroups made for one executor: what to join, and how to remove them once it is gone. */
export interface CgroupLease {
  kind: Exclude<ResourceLimits, 'none'>;
  /** `cgroup.procs` files the executor's first process writes its pid to. */
  procsFiles: string[];
  release(): Promise<void>;
}

const ROOT = '/sys/fs/cgroup';

async function ownCgroupPaths(): Promise<Map<string, string>> {
  const byController = new Map<string, string>();
  for (const line of (await readFile('/proc/self/cgroup', 'utf8')).split('\n')) {
    const [, controllers, cgroupPath] = line.split(':');
    if (controllers === undefined || cgroupPath === undefined) continue;
    for (const controller of controllers === '' ? ['unified'] : controllers.split(',')) {
      byController.set(controller, cgroupPath);
    }
  }
  return byController;
}

/** How long a cgroup may stay busy after its executor exited before it is left to the stale sweep. */
const REMOVE_TRIES_MS = 1_000;

/**
 * Removes cgroups once their last processes are gone. rmdir says EBUSY for the few ms the kernel
 * takes to unlink exited tasks (longer with many sandboxes ending at once), so it is retried
 * after 1, 2, 4 … ms, at most 20 ms apart: an executor's end waits for this.
 */
async function removeWhenEmpty(dirs: readonly string[]): Promise<void> {
  await Promise.all(
    dirs.map(async (dir) => {
      let waited = 0;
      for (let pause = 1; waited < REMOVE_TRIES_MS; pause = Math.min(pause * 2, 20)) {
        try {
          await rmdir(dir);
          return;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
          await new Promise((resolve) => setTimeout(resolve, pause));
          waited += pause;
        }
      }
    }),
  );
}

/** Younger than this, a cgroup may belong to a harness we cannot see (another pid namespace) that is still filling it. */
const STALE_AFTER_MS = 60_000;

/**
 * Removes cgroups left by harnesses that died without cleaning up (SIGKILL): named for a pid that
 * no longer exists, a minute old, and empty (rmdir refuses any cgroup that still holds a process).
 */
async function sweepStale(parent: string): Promise<void> {
  for (const entry of await readdir(parent).catch(() => [] as string[])) {
    const pid = /^skate-(\d+)-\d+$/.exec(entry)?.[1];
    if (pid === undefined || isRunning(Number(pid))) continue;
    const dir = path.join(parent, entry);
    const info = await stat(dir).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > STALE_AFTER_MS) await rmdir(dir).catch(() => undefined);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

async function v2Lease(own: string, name: string, limits: PolicyLimits): Promise<CgroupLease | undefined> {
  const parent = path.join(ROOT, own);
  await sweepStale(parent);
  const enabled = (await readFile(path.join(parent, 'cgroup.subtree_control'), 'utf8')).split(/\s+/);
  if (!enabled.includes('memory') || !enabled.includes('pids')) {
    // Enabling controllers is only allowed where the parent holds no processes itself.
    await writeFile(path.join(parent, 'cgroup.subtree_control'), '+memory +pids');
  }
  const dir = path.join(parent, name);
  await mkdir(dir);
  try {
    await writeFile(path.join(dir, 'memory.max'), String(limits.memoryMiB * 1024 * 1024));
    await writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => undefined);
    await writeFile(path.join(dir, 'pids.max'), String(limits.processes));
  } catch (error) {
    await removeWhenEmpty([dir]);
    throw error;
  }
  return {
    kind: 'cgroup-v2',
    procsFiles: [path.join(dir, 'cgroup.procs')],
    release: () => removeWhenEmpty([dir]),
  };
}

async function v1Lease(
  own: Map<string, string>,
  name: string,
  limits: PolicyLimits,
): Promise<CgroupLease | undefined> {
  const settings: [string, string, string][] = [
    ['memory', 'memory.limit_in_bytes', String(limits.memoryMiB * 1024 * 1024)],
    ['pids', 'pids.max', String(limits.processes)],
  ];
  const made: string[] = [];
  try {
    for (const [controller, file, value] of settings) {
      const mount = path.join(ROOT, controller);
      const ownPath = own.get(controller);
      if (!existsSync(mount) || ownPath === undefined) throw new Error(`no ${controller} hierarchy`);
      const dir = path.join(mount, ownPath, name);
      await sweepStale(path.dirname(dir));
      await mkdir(dir);
      made.push(dir);
      await writeFile(path.join(dir, file), value);
    }
  } catch (error) {
    await removeWhenEmpty(made);
    throw error;
  }
  return {
    kind: 'cgroup-v1',
    procsFiles: made.map((dir) => path.join(dir, 'cgroup.procs')),
    release: () => removeWhenEmpty(made),
  };
}

/**
 * Memory and process-count limits for one executor and everything it starts.
 * RLIMIT_NPROC does not bind uid 0, so a fork bomb is stopped by the pids
 * controller instead; the memory controller makes the kernel's OOM killer
 * choose inside the sandbox, never the harness. Returns undefined where
 * cgroups cannot be written (not root, no delegation): limits are then not enforced.
 */
export async function createCgroupLimits(
  limits: PolicyLimits,
  name: string,
): Promise<CgroupLease | undefined> {
  try {
    const own = await ownCgroupPaths();
    if (existsSync(path.join(ROOT, 'cgroup.controllers')))
      return await v2Lease(own.get('unified') ?? '/', name, limits);
    return await v1Lease(own, name, limits);
  } catch {
    return undefined;
  }
}

/**
 * Which cgroup version would bound an executor's memory and processes here, found by
 * creating (and at once removing) an empty cgroup with these limits.
 */
export async function cgroupSupport(limits: PolicyLimits): Promise<ResourceLimits> {
  const lease = await createCgroupLimits(limits, `skate-probe-${process.pid}-${Date.now()}`);
  await lease?.release();
  return lease?.kind ?? 'none';
}
