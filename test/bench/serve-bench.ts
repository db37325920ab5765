import { spawn } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { distPath } from '../../harness/project-paths.js';
import type { SessionInfo } from '../../shared/serve-api.js';
import {
  awkwardChunks,
  type FakeMessagesApi,
  type FakeReply,
  fakeMessagesApi,
} from '../support/fake-messages-api.js';
import { processDescendants } from '../support/process-descendants.js';
import { type SkateServe, sseMessages, startSkateServe } from '../support/skate-serve.js';
import { median, quantile, round } from './stats.js';

const KEY = 'sk-ant-bench-key';
/** A reply of about 60 text deltas (the fake cuts text into 1–7 character pieces). */
const REPLY_TEXT = 'The quick brown fox jumps over the lazy dog; '.repeat(5);
/** The latency runs' reply: about 330 deltas, 2 ms apart, so most of each run is past the warm-up. */
const LATENCY_TEXT = REPLY_TEXT.repeat(5);
/** Text deltas at the start of each latency run that are not counted. */
const WARM_UP_DELTAS = 50;

export interface ServeBenchOptions {
  sessions?: number;
  prompts?: number;
  /** The load phase stops starting prompts after this long. */
  budgetMs?: number;
  latencyRuns?: number;
  idleSessions?: number;
}

export interface ServeFigures {
  serve_load_sessions: number;
  serve_load_runs_completed: number;
  serve_load_runs_planned: number;
  serve_load_runs_failed: number;
  serve_load_seconds: number;
  serve_events_per_s: number;
  /** CPU time of the skate serve process (harness only, not executors) per completed run… */
  serve_cpu_ms_per_run: number;
  /** …and of this process (the 50 SSE clients and the fake Messages API) per run, for scale. */
  bench_client_and_fake_api_cpu_ms_per_run: number;
  /** Per text delta: from the fake API writing it to the client reading it, streamed by skate serve… */
  serve_event_latency_p50_ms: number;
  serve_event_latency_p99_ms: number;
  /** …and by `skate -p --output-format stream-json` on the same replies (the baseline). */
  headless_event_latency_p50_ms: number;
  headless_event_latency_p99_ms: number;
  serve_added_latency_p50_ms: number;
  serve_added_latency_p99_ms: number;
  /** The server alone, before any session (baseline for the per-session figures). */
  serve_rss_empty_mib: number;
  /** Per idle session with its executor running: the server's growth plus its executor processes. */
  serve_idle_session_mib: number;
  /** Per idle session whose executor was stopped (idle timeout): the server's growth only. */
  serve_stopped_session_mib: number;
}

function env(api: FakeMessagesApi): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: api.url };
}

const text = (delayMs = 0, body = REPLY_TEXT): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'text', text: body }],
  ...(delayMs > 0 && { chunkDelayMs: delayMs }),
});

async function createSession(server: SkateServe): Promise<SessionInfo> {
  const response = await server.request('/v1/sessions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
  return (await response.json()) as SessionInfo;
}

/** Streams one prompt; returns each text delta's text and when it was read, and the number of messages. */
async function streamPrompt(
  server: SkateServe,
  id: string,
): Promise<{ deltas: { text: string; at: number }[]; messages: number; status: string }> {
  const response = await server.request(`/v1/sessions/${id}/prompt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'say it' }),
  });
  if (response.status !== 200) throw new Error(`prompt: ${response.status} ${await response.text()}`);
  const deltas: { text: string; at: number }[] = [];
  let messages = 0;
  let status = 'none';
  for await (const message of sseMessages(response)) {
    messages++;
    if (message.data.type === 'text_delta') deltas.push({ text: message.data.text, at: performance.now() });
    if (message.data.type === 'result') status = message.data.status;
  }
  return { deltas, messages, status };
}

/**
 * Milliseconds from the fake API writing each text delta to the client
 * reading the event that carries it (matched by text offset, so coalescing on
 * the way is accounted for: an event counts from its last piece's write).
 */
function latencies(
  sent: readonly { event: string; at: number }[],
  received: { text: string; at: number }[],
): number[] {
  const written = sent.filter((entry) => entry.event === 'content_block_delta');
  const ends: number[] = [];
  let end = 0;
  for (const piece of awkwardChunks(LATENCY_TEXT)) {
    end += piece.length;
    ends.push(end);
  }
  const out: number[] = [];
  let offset = 0;
  for (const [index, delta] of received.entries()) {
    offset += delta.text.length;
    // The first pieces meet a cold process in the headless run (and a cold path in either): warm-up, left out.
    if (index < WARM_UP_DELTAS) continue;
    const piece = ends.findIndex((end) => end >= offset);
    const writtenAt = written[piece]?.at;
    if (writtenAt !== undefined) out.push(delta.at - writtenAt);
  }
  return out;
}

/** One `skate -p --output-format stream-json` run; text deltas with their read times. */
async function headlessRun(workspace: string, api: FakeMessagesApi): Promise<{ text: string; at: number }[]> {
  const child = spawn(
    process.execPath,
    [distPath('cli', 'skate.js'), '-p', 'say it', '--output-format', 'stream-json', '--workspace', workspace],
    { env: env(api), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stderr.resume();
  const deltas: { text: string; at: number }[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    const event = JSON.parse(line) as { type: string; text?: string };
    if (event.type === 'text_delta') deltas.push({ text: event.text ?? '', at: performance.now() });
  }
  await new Promise((resolve) => child.once('close', resolve));
  return deltas;
}

/** CPU time (user + system) a process has used, in ms. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat (12 and 13 after the command), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** RSS in MiB of a process and everything below it (shared pages counted in each). */
async function treeRssMib(pid: number): Promise<{ own: number; tree: number }> {
  const rss = async (p: number): Promise<number> => {
    try {
      const status = await readFile(`/proc/${p}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  };
  const own = await rss(pid);
  let tree = own;
  for (const child of await processDescendants(pid)) tree += await rss(child);
  return { own, tree };
}

/**
 * `skate serve` under load, against the local fake Messages API: N sessions ×
 * M prompts at once (events/s streamed, bounded in time), the added latency
 * per event against the headless CLI's stream-json on the same replies, and
 * memory per idle session.
 */
export async function benchServe(options: ServeBenchOptions = {}): Promise<ServeFigures> {
  const sessions = options.sessions ?? Number(process.env.SERVE_BENCH_SESSIONS ?? 50);
  const prompts = options.prompts ?? Number(process.env.SERVE_BENCH_PROMPTS ?? 20);
  const budgetMs = options.budgetMs ?? 180_000;
  const latencyRuns = options.latencyRuns ?? 6;
  const idleSessions = options.idleSessions ?? 10;
  const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-serve-bench-')));
  try {
    await using api = await fakeMessagesApi();
    api.enqueue(...Array.from({ length: sessions * prompts }, () => text()));

    // Load: every session prompts in turn, all sessions at once.
    const load = await (async () => {
      await using server = await startSkateServe(
        [
          '--workspace',
          workspace,
          '--approval',
          'auto',
          '--max-sessions',
          String(sessions),
          '--max-runs',
          String(sessions),
        ],
        env(api),
      );
      const created = await Promise.all(Array.from({ length: sessions }, () => createSession(server)));
      const deadline = performance.now() + budgetMs;
      const cpuBefore = await cpuMs(server.child.pid!);
      const benchCpuBefore = process.cpuUsage();
      const started = performance.now();
      let messages = 0;
      let completed = 0;
      const failures: string[] = [];
      await Promise.all(
        created.map(async (session) => {
          for (let index = 0; index < prompts && performance.now() < deadline; index++) {
            try {
              const run = await streamPrompt(server, session.id);
              messages += run.messages;
              if (run.status === 'complete') completed++;
            } catch (error) {
              failures.push(`${(error as Error).message} ${String((error as Error).cause ?? '')}`);
            }
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const serverCpu = (await cpuMs(server.child.pid!)) - cpuBefore;
      const benchCpu = process.cpuUsage(benchCpuBefore);
      if (failures.length > 0) {
        process.stderr.write(`serve bench: ${failures.length} prompts failed, first: ${failures[0]}\n`);
      }
      const runs = Math.max(1, completed);
      return {
        seconds,
        messages,
        completed,
        failed: failures.length,
        serverCpuPerRun: serverCpu / runs,
        benchCpuPerRun: (benchCpu.user + benchCpu.system) / 1000 / runs,
      };
    })();

    // Latency: the same slowly streamed reply, through skate serve and through skate -p, alternating.
    const serveLatency: number[] = [];
    const headlessLatency: number[] = [];
    {
      // A fresh API: the load phase may have left replies queued when it ran out of time.
      await using api = await fakeMessagesApi();
      await using server = await startSkateServe(['--workspace', workspace, '--approval', 'auto'], env(api));
      const session = await createSession(server);
      for (let run = 0; run < latencyRuns; run++) {
        api.enqueue(text(2, LATENCY_TEXT));
        const served = await streamPrompt(server, session.id);
        serveLatency.push(...latencies(api.requests.at(-1)!.sent, served.deltas));
        api.enqueue(text(2, LATENCY_TEXT));
        const headless = await headlessRun(workspace, api);
        headlessLatency.push(...latencies(api.requests.at(-1)!.sent, headless));
      }
    }

    // Memory: idle sessions with their executors, then the same sessions once the idle timeout stopped them.
    const memory = await (async () => {
      await using server = await startSkateServe(
        ['--workspace', workspace, '--approval', 'auto', '--idle-timeout', '4'],
        env(api),
      );
      const pid = server.child.pid!;
      await new Promise((resolve) => setTimeout(resolve, 500));
      const empty = await treeRssMib(pid);
      for (let index = 0; index < idleSessions; index++) await createSession(server);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const idle = await treeRssMib(pid);
      const deadline = performance.now() + 20_000;
      for (;;) {
        const list = (await (await server.request('/v1/sessions')).json()) as { sessions: SessionInfo[] };
        if (list.sessions.every((s) => s.status === 'stopped') || performance.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      const stopped = await treeRssMib(pid);
      return {
        empty: empty.own,
        idle: (idle.tree - empty.tree) / idleSessions,
        stopped: (stopped.own - empty.own) / idleSessions,
      };
    })();

    const p = (values: number[], q: number): number => round(quantile(values, q), 2);
    return {
      serve_load_sessions: sessions,
      serve_load_runs_completed: load.completed,
      serve_load_runs_planned: sessions * prompts,
      serve_load_runs_failed: load.failed,
      serve_load_seconds: round(load.seconds, 2),
      serve_events_per_s: Math.round(load.messages / load.seconds),
      serve_cpu_ms_per_run: round(load.serverCpuPerRun, 2),
      bench_client_and_fake_api_cpu_ms_per_run: round(load.benchCpuPerRun, 2),
      serve_event_latency_p50_ms: p(serveLatency, 0.5),
      serve_event_latency_p99_ms: p(serveLatency, 0.99),
      headless_event_latency_p50_ms: p(headlessLatency, 0.5),
      headless_event_latency_p99_ms: p(headlessLatency, 0.99),
      serve_added_latency_p50_ms: round(median(serveLatency) - median(headlessLatency), 2),
      serve_added_latency_p99_ms: round(quantile(serveLatency, 0.99) - quantile(headlessLatency, 0.99), 2),
      serve_rss_empty_mib: round(memory.empty, 1),
      serve_idle_session_mib: round(memory.idle, 1),
      serve_stopped_session_mib: round(memory.stopped, 2),
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
