import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { distPath } from '../../harness/project-paths.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { median, round } from './stats.js';

const RUNS = 9;
/** Between RSS samples of the whole process tree; each sample reads /proc, so only one run samples. */
const RSS_SAMPLE_MS = 10;
/** Runs whose memory is sampled. */
const RSS_RUNS = 5;

export interface FirstRequestFigures {
  /** `skate -p` spawned → its first Messages request (`POST /v1/messages`) arrives at the local API (median). */
  first_request_ms: number;
  first_request_min_ms: number;
  first_request_max_ms: number;
  /** `node -e 0` spawn → exit, alternating with the runs. */
  first_request_node_ms: number;
  /** `skate --version` spawn → exit: the CLI's own load, no executor, no SDK. */
  first_request_version_ms: number;
  first_request_vs_node: number;
  /**
   * The same with nothing remembered of the executor's tools (a first start under this policy,
   * build and Node): the request waits for the executor's own list (median, alternating).
   */
  first_request_unremembered_ms: number;
  /** The same runs to their exit (one short text reply). */
  first_request_run_ms: number;
  /** Peak resident memory of the CLI's whole process tree (harness, sandbox, executor) in one run, in MiB. */
  first_request_peak_rss_mb: number;
  first_request_peak_rss_min_mb: number;
  first_request_peak_rss_max_mb: number;
  /** The sum of each process's own peak RSS (VmHWM): an upper bound of the tree's peak. */
  first_request_peak_hwm_sum_mb: number;
}

interface Spawned {
  startedAt: number;
  exited: Promise<number>;
  pid: number | undefined;
}

function start(args: string[], cwd: string, env: NodeJS.ProcessEnv): Spawned {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(performance.now())
        : reject(new Error(`${args.join(' ')} exited ${code}:\n${stderr}`)),
    );
  });
  return { startedAt, exited, pid: child.pid };
}

async function elapsed(args: string[], cwd: string): Promise<number> {
  const run = start(args, cwd, process.env);
  return (await run.exited) - run.startedAt;
}

/**
 * The process tree's RSS now, walked through `/proc/<pid>/task/<tid>/children` (a few reads, not
 * a scan of all of /proc, so a 10 ms sampler keeps its pace through a 300 ms run), and each
 * process's own peak (VmHWM), kept per pid in `peaks` so a process that exits still counts.
 */
async function sampleTree(pid: number, peaks: Map<number, number>): Promise<number> {
  let kb = 0;
  const queue = [pid];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    const status = await readFile(`/proc/${next}/status`, 'utf8').catch(() => '');
    kb += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    const hwm = Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    peaks.set(next, Math.max(peaks.get(next) ?? 0, hwm));
    const tasks = await readdir(`/proc/${next}/task`).catch(() => [] as string[]);
    for (const tid of tasks) {
      const children = await readFile(`/proc/${next}/task/${tid}/children`, 'utf8').catch(() => '');
      for (const child of children.split(' ')) if (child.trim()) queue.push(Number(child));
    }
  }
  return kb;
}

/** One `skate -p` run against a fresh fake API: when its first request arrived, when it exited, its peak RSS. */
async function agentRun(
  workspace: string,
  cache: string,
  sampleRss: boolean,
): Promise<{ firstMs: number; runMs: number; peakKb: number; hwmSumKb: number }> {
  await using api = await fakeMessagesApi([
    {
      type: 'message',
      blocks: [{ type: 'text', text: 'done' }],
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  ]);
  const env = {
    ...process.env,
    ANTHROPIC_API_KEY: 'sk-ant-bench',
    ANTHROPIC_BASE_URL: api.url,
    XDG_CACHE_HOME: cache,
  };
  const run = start(
    [distPath('cli', 'skate.js'), '-p', 'say done', '--workspace', workspace],
    workspace,
    env,
  );
  let peakKb = 0;
  const peaks = new Map<number, number>();
  let sampling = sampleRss && run.pid !== undefined;
  const sampler = (async () => {
    while (sampling) {
      peakKb = Math.max(peakKb, await sampleTree(run.pid!, peaks));
      await new Promise((resolve) => setTimeout(resolve, RSS_SAMPLE_MS));
    }
  })();
  try {
    const exitedAt = await run.exited;
    // The first Messages request, whatever else (a warm-up, say) reached the server before it.
    const first = api.requests.findIndex((r) => r.method === 'POST' && r.path === '/v1/messages');
    const arrived = api.arrivals[first];
    if (arrived === undefined) throw new Error('skate -p exited without a request to the Messages API');
    const hwmSumKb = [...peaks.values()].reduce((sum, kb) => sum + kb, 0);
    return { firstMs: arrived - run.startedAt, runMs: exitedAt - run.startedAt, peakKb, hwmSumKb };
  } finally {
    sampling = false;
    await sampler;
  }
}

/**
 * `skate -p` as a user starts it (the built CLI, real SDK, a real sandboxed executor)
 * against the local fake Messages API: spawn → first request, alternating with
 * `node -e 0` and `skate --version` so all three see the same machine.
 */
export async function benchFirstRequest(): Promise<FirstRequestFigures> {
  const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-first-request-')));
  // A cache of its own (the sandbox probe's verdict, remembered tool lists), never the user's.
  const cache = await mkdtemp(path.join(tmpdir(), 'skate-first-request-cache-'));
  try {
    await agentRun(workspace, cache, false); // warm the page cache, the probe's verdict, the tool list
    const first: number[] = [];
    const unremembered: number[] = [];
    const whole: number[] = [];
    const node: number[] = [];
    const version: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      node.push(await elapsed(['-e', '0'], workspace));
      version.push(await elapsed([distPath('cli', 'skate.js'), '--version'], workspace));
      const run = await agentRun(workspace, cache, false);
      first.push(run.firstMs);
      whole.push(run.runMs);
      await rm(path.join(cache, 'skate', 'tools'), { recursive: true, force: true });
      unremembered.push((await agentRun(workspace, cache, false)).firstMs);
    }
    // Memory as a user meets it: the whole tree of `skate -p` (CLI, bwrap, executor), sampled every
    // 10 ms over several runs; the sum of each process's own peak bounds the tree's peak from above.
    const sampled: { peakKb: number; hwmSumKb: number }[] = [];
    for (let i = 0; i < RSS_RUNS; i++) sampled.push(await agentRun(workspace, cache, true));
    const peaks = sampled.map((run) => run.peakKb / 1024);
    return {
      first_request_ms: round(median(first)),
      first_request_min_ms: round(Math.min(...first)),
      first_request_max_ms: round(Math.max(...first)),
      first_request_node_ms: round(median(node)),
      first_request_version_ms: round(median(version)),
      first_request_vs_node: round(median(first) / median(node), 2),
      first_request_unremembered_ms: round(median(unremembered)),
      first_request_run_ms: round(median(whole)),
      first_request_peak_rss_mb: round(median(peaks)),
      first_request_peak_rss_min_mb: round(Math.min(...peaks)),
      first_request_peak_rss_max_mb: round(Math.max(...peaks)),
      first_request_peak_hwm_sum_mb: round(median(sampled.map((run) => run.hwmSumKb / 1024))),
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
    await rm(cache, { recursive: true, force: true });
  }
}
