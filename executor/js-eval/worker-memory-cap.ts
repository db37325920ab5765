import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { distFile } from '../dist-file.js';
import type { Unavailable } from './isolated-vm-loader.js';

/**
 * Room over the isolate's own limit: V8's collector works above the heap limit before
 * isolated-vm gives up on the isolate (about 50 MiB seen at 128 MiB), and the worker's own Node
 * parses requests (up to 16 MiB of code) and formats values.
 */
export const WORKER_HEADROOM_MIB = 96;

/**
 * Caps the worker's whole memory: isolated-vm's `memoryLimit` counts the isolate's heap and its
 * ArrayBuffers, not WebAssembly memories (`new WebAssembly.Memory({ initial: 16384 })` filled
 * 1 GiB under a 128 MiB limit) nor what V8 lets the heap overshoot (a doubled string reached 400
 * MiB). The kernel's data limit (RLIMIT_DATA: every private writable mapping) bounds them all: a
 * wasm memory or buffer past it fails to allocate, the heap past it ends the worker.
 *
 * The cap is what the worker holds once its isolate exists (its floor: about 55 MiB on Node 20,
 * 1.1 GiB on Node 24, where each isolate reserves a 512 MiB code range that counts but holds
 * nothing) plus the isolate's limit and `WORKER_HEADROOM_MIB`. Call it after the first isolate
 * is made and before any code runs. Node cannot call setrlimit, so skate-confine sets it.
 */
export function capWorkerMemory(memoryMiB: number): { limitMiB: number } | Unavailable {
  const fix =
    'run Skate on Linux with its native helper built (`npm run build` compiles dist/bin/skate-confine)';
  let floorMiB: number;
  try {
    floorMiB = statusMiB('VmData');
  } catch (error) {
    return { reason: `js_eval cannot measure its worker's memory: ${(error as Error).message}`, fix };
  }
  const limitMiB = floorMiB + memoryMiB + WORKER_HEADROOM_MIB;
  let confine: string;
  try {
    confine = distFile('bin/skate-confine');
  } catch (error) {
    return { reason: `js_eval cannot bound its worker's memory: ${(error as Error).message}`, fix };
  }
  const set = spawnSync(confine, ['--limit-data', String(process.pid), String(limitMiB)], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {},
  });
  if (set.status !== 0 || dataLimitBytes() !== limitMiB * 1024 * 1024) {
    const why = set.error?.message ?? (set.stderr.trim() || `exit ${set.status}`);
    return { reason: `js_eval cannot bound its worker's memory (${why})`, fix };
  }
  return { limitMiB };
}

/** A `Vm…` line of /proc/self/status, in MiB. */
function statusMiB(field: string): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
  if (kib === undefined) throw new Error(`no ${field} in /proc/self/status`);
  return Math.ceil(Number(kib) / 1024);
}

/** The soft RLIMIT_DATA now in force, as /proc/self/limits shows it. */
function dataLimitBytes(): number | undefined {
  const line = /^Max data size\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return line ? Number(line[1]) : undefined;
}
