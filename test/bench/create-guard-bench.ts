import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { loadPolicy } from '../../harness/policy/load-policy.js';
import { projectRoot } from '../../harness/project-paths.js';
import { confineWrapper, type ExecutorLauncher } from '../../harness/sandbox/executor-launch.js';
import { kernelLauncher } from '../../harness/sandbox/kernel-launcher.js';
import { GUARD_FD } from '../../harness/sandbox/mount-plan.js';
import { prepareSandbox } from '../../harness/sandbox/prepare-sandbox.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { median, round } from './stats.js';

export interface CreateGuardFigures {
  /** One O_CREAT open (and close) of a new file, from python inside `skate sandbox`, in µs. */
  guard_create_file_us: number;
  guard_create_file_baseline_us: number;
  /**
   * One open for writing (O_WRONLY, no O_CREAT) and close of an existing file, in µs: handed to the
   * supervisor too, which refuses it under a protected tree (`.skate`, `.claude/agents`, `.mcp.json`).
   */
  guard_open_write_us: number;
  guard_open_write_baseline_us: number;
  /** One mkdir of a new directory, in µs. */
  guard_mkdir_us: number;
  guard_mkdir_baseline_us: number;
  /** `tar -x` of a node_modules-like tree (2,000 packages, 16,000 files), in ms. */
  guard_tar_ms: number;
  guard_tar_baseline_ms: number;
  /** The executor's own write_file, to a new file, per call, in ms. */
  guard_write_file_ms: number;
  guard_write_file_baseline_ms: number;
  /** An executor's start, spawn to its tool list, in ms. */
  guard_executor_start_ms: number;
  guard_executor_start_baseline_ms: number;
  /** `vitest run` of a few of Skate's unit test folders, in this checkout, in s. */
  guard_vitest_s: number;
  guard_vitest_baseline_s: number;
}

const RUNS = 5;

/**
 * The same argv without the create guard: what every sandbox was before it, the baseline here
 * and nowhere else (the guard's options before `--`, the inner `--guard-fd @guard-fd`).
 */
function withoutGuard(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--guard') continue;
    if (arg === '--guard-deny') i += 2;
    else if (arg === '--guard-name' || arg === '--guard-tree') i += 1;
    else if (arg === '--guard-fd' && argv[i + 1] === GUARD_FD) i += 1;
    else out.push(arg);
  }
  return out;
}

/** Runs a command as `skate sandbox` does (with or without the guard) and returns its stdout. */
async function inSandbox(policy: ResolvedPolicy, guarded: boolean, command: string[]): Promise<string> {
  const sandbox = await prepareSandbox(policy);
  try {
    const argv = [...(guarded ? sandbox.argv : withoutGuard(sandbox.argv)), ...confineWrapper(), ...command];
    return await new Promise<string>((resolve, reject) => {
      const child = spawn(argv[0]!, argv.slice(1), { cwd: policy.workspace, env: sandbox.env });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        err += chunk;
      });
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
    });
  } finally {
    await sandbox.release();
  }
}

const CREATE = `
import os, sys, time
d = sys.argv[1]; n = int(sys.argv[2])
os.makedirs(d)
t0 = time.perf_counter()
for i in range(n):
    os.close(os.open(f"{d}/f{i}", os.O_CREAT | os.O_WRONLY, 0o644))
t1 = time.perf_counter()
for i in range(n):
    os.mkdir(f"{d}/d{i}")
t2 = time.perf_counter()
for i in range(n):
    os.close(os.open(f"{d}/f{i}", os.O_WRONLY))
t3 = time.perf_counter()
print(1e6 * (t1 - t0) / n, 1e6 * (t2 - t1) / n, 1e6 * (t3 - t2) / n)
`;

async function policyFor(workspace: string): Promise<ResolvedPolicy> {
  const loaded = await loadPolicy('execute', { workspace });
  if (!loaded.ok) throw new Error(loaded.problem.message);
  return loaded.policy;
}

function launcher(guarded: boolean): ExecutorLauncher {
  const kernel = kernelLauncher();
  return async (policy) => {
    const launch = await kernel(policy);
    return guarded ? launch : { ...launch, args: withoutGuard(launch.args) };
  };
}

async function writeFiles(policy: ResolvedPolicy, guarded: boolean, pass: number): Promise<number> {
  const executor = await ExecutorClient.spawn({ policy, launcher: launcher(guarded) });
  try {
    const calls = 300;
    const start = performance.now();
    for (let i = 0; i < calls; i++) {
      const result = await executor.callTool('write_file', {
        path: `wf-${guarded}-${pass}/a/f${i}.txt`,
        content: 'x\n',
      });
      if (result.isError) throw new Error(result.output);
    }
    return (performance.now() - start) / calls;
  } finally {
    await executor.shutdown();
  }
}

/**
 * What the create guard costs: every name-creating call of a sandbox is a round trip to its
 * supervisor, which resolves and makes the name itself. Each figure next to the same work in the
 * same sandbox without the guard, alternating runs, medians.
 */
export async function benchCreateGuard(): Promise<CreateGuardFigures> {
  const base = path.join(homedir(), '.cache', 'skate-tests');
  await mkdir(base, { recursive: true });
  const root = await realpath(await mkdtemp(path.join(base, 'bench-guard-')));
  try {
    const ws = path.join(root, 'ws');
    await mkdir(ws);
    const policy = await policyFor(ws);
    const script = path.join(root, 'create.py');
    await writeFile(script, CREATE);
    // A node_modules-like tree, packed once: 2,000 packages of 8 small files.
    const tree = path.join(root, 'tree', 'node_modules');
    for (let p = 0; p < 2000; p++) {
      const dir = path.join(tree, `pkg-${p}`, 'lib');
      await mkdir(dir, { recursive: true });
      for (let f = 0; f < 7; f++) await writeFile(path.join(dir, `m${f}.js`), `module.exports = ${f};\n`);
      await writeFile(path.join(tree, `pkg-${p}`, 'package.json'), '{"name":"x"}\n');
    }
    const tarball = path.join(root, 'tree.tar');
    await new Promise<void>((resolve, reject) =>
      spawn('tar', ['-C', path.join(root, 'tree'), '-cf', tarball, 'node_modules'])
        .once('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar ${code}`))))
        .once('error', reject),
    );
    const files: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const dirs: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const opens: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const tar: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const writes: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const vitest: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const starts: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let run = 0; run < RUNS; run++) {
      for (const guarded of [true, false]) {
        const key = guarded ? 'on' : 'off';
        const [file, dir, open] = (
          await inSandbox(policy, guarded, ['python3', script, path.join(ws, `c-${key}-${run}`), '10000'])
        )
          .trim()
          .split(' ')
          .map(Number);
        files[key].push(file!);
        dirs[key].push(dir!);
        opens[key].push(open!);
        const dest = path.join(ws, `t-${key}-${run}`);
        const took = await inSandbox(policy, guarded, [
          'sh',
          '-c',
          `mkdir ${dest} && s=$(date +%s%N) && tar -C ${dest} -xf ${tarball} && e=$(date +%s%N) && echo $(((e-s)/1000))`,
        ]);
        tar[key].push(Number(took.trim()) / 1000);
        writes[key].push(await writeFiles(policy, guarded, run));
        for (let i = 0; i < 3; i++) {
          const start = performance.now();
          const executor = await ExecutorClient.spawn({ policy, launcher: launcher(guarded) });
          starts[key].push(performance.now() - start);
          await executor.shutdown();
        }
        await rm(path.join(ws, `c-${key}-${run}`), { recursive: true, force: true });
        await rm(dest, { recursive: true, force: true });
      }
    }
    // A test run of Skate's own, in this checkout: fewer rounds, it takes seconds.
    const checkout = await policyFor(projectRoot());
    for (let run = 0; run < 2; run++) {
      for (const guarded of [true, false]) {
        const start = performance.now();
        await inSandbox(checkout, guarded, [
          path.join(projectRoot(), 'node_modules', '.bin', 'vitest'),
          'run',
          'test/unit/session',
          'test/unit/settings',
          'test/unit/engine',
          '--reporter=dot',
        ]);
        vitest[guarded ? 'on' : 'off'].push((performance.now() - start) / 1000);
      }
    }
    return {
      guard_create_file_us: round(median(files.on)),
      guard_create_file_baseline_us: round(median(files.off)),
      guard_open_write_us: round(median(opens.on)),
      guard_open_write_baseline_us: round(median(opens.off)),
      guard_mkdir_us: round(median(dirs.on)),
      guard_mkdir_baseline_us: round(median(dirs.off)),
      guard_tar_ms: round(median(tar.on)),
      guard_tar_baseline_ms: round(median(tar.off)),
      guard_write_file_ms: round(median(writes.on), 2),
      guard_write_file_baseline_ms: round(median(writes.off), 2),
      guard_executor_start_ms: round(median(starts.on)),
      guard_executor_start_baseline_ms: round(median(starts.off)),
      guard_vitest_s: round(median(vitest.on), 2),
      guard_vitest_baseline_s: round(median(vitest.off), 2),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
