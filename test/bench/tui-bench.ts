import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The terminal UI's figures, each part measured in a process of its own (so
 * RSS and CPU are the UI's, not the bench's) with React in the mode the skate
 * bundle ships (production). Targets (issue 11): key → frame p50 ≤ 16 ms and
 * p99 ≤ 50 ms with 5,000 blocks while a reply streams at 200 deltas/s;
 * ≥ 2,000 deltas/s rendered without dropping text at ≤ 60 frames/s; first frame
 * of a 100,000-event session ≤ 1.5 s.
 *
 * Baselines from the same run: keys on an empty conversation and on the 5,000
 * blocks with nothing streaming; the 100k events turned into blocks without
 * drawing; RSS and heap of the same process with an empty UI, and the heap the
 * recorded conversation itself takes. `tui_stream_2k_*` streams at the target
 * rate, `tui_stream_10k_*` at five times it.
 */
export type TuiFigures = Record<string, number | boolean>;

const CHILD = fileURLToPath(new URL('./tui-bench-child.js', import.meta.url));

function runPart(part: 'interactive' | 'session'): Promise<TuiFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', CHILD, part], {
      env: { ...process.env, NODE_ENV: process.env.TUI_BENCH_NODE_ENV ?? 'production' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`tui bench ${part} exited ${code}: ${out}`));
      else resolve(JSON.parse(line) as TuiFigures);
    });
  });
}

export async function benchTui(): Promise<TuiFigures> {
  return { ...(await runPart('interactive')), ...(await runPart('session')) };
}

const MEMORY_CHILD = fileURLToPath(new URL('./tui-memory-bench-child.js', import.meta.url));

function runMemory(which: 'bundle' | 'ink'): Promise<TuiFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', MEMORY_CHILD, which], {
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{'))
        reject(new Error(`tui memory bench ${which} exited ${code}: ${out}`));
      else resolve(JSON.parse(line) as TuiFigures);
    });
  });
}

/**
 * Memory over a 10,000-turn session (#24): Ink as the skate bundle ships it (bounded text caches)
 * against Ink from node_modules (its caches keep every text drawn), in the same run.
 */
export async function benchTuiMemory(): Promise<TuiFigures> {
  return { ...(await runMemory('ink')), ...(await runMemory('bundle')) };
}
