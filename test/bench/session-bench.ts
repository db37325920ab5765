import { mkdtemp, open, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadSession } from '../../harness/session/session-reader.js';
import { createSessionWriter, type SessionWriter } from '../../harness/session/session-writer.js';
import type { Message } from '../../shared/conversation.js';
import { median, microsSince, quantile, round } from './stats.js';

const LOAD_EVENTS = 100_000;
/** Events one `logCycle` writes: prompt, reply, tool results (each message logged whole). */
const CYCLE_EVENTS = 3;
const BURST_EVENTS = 20_000;
const PACED_EVENTS = 300;
const ROUNDS = 3;
const LOAD_ROUNDS = 5;

export interface SessionFigures {
  /** Median time to load a 100,000-event session (the target is ≤ 1 s). */
  session_load_100k_ms: number;
  session_load_100k_mb: number;
  /** Baseline: reading the file and JSON.parse of each line, nothing else. */
  json_parse_100k_ms: number;
  session_load_vs_json_parse: number;
  /** Events appended in a burst through the writer, then flushed, under the default policy (fdatasync per batch). */
  session_append_per_s: number;
  /** The same with fdatasync only on close. */
  session_append_nosync_per_s: number;
  /** Baseline: the same lines, one awaited write each, no fsync. */
  raw_append_per_s: number;
  session_append_vs_raw: number;
  /** Each event made durable before the next (append + flush) through the writer. */
  session_durable_append_per_s: number;
  /** Baseline: the same lines, one write + fdatasync each. */
  raw_durable_append_per_s: number;
  session_durable_vs_raw: number;
  /** What one fdatasync after a small append costs here: the wait before an event is on disk. */
  fsync_cost_ms: number;
  fsync_p99_ms: number;
  /** The synchronous part of one append: what the engine's thread pays per event. */
  session_append_call_us: number;
}

/** One cycle of a typical session: prompt, reply with a call, its result. */
function logCycle(writer: SessionWriter, index: number): void {
  writer.userMessage({
    role: 'user',
    content: [{ type: 'text', text: `please fix the failing test ${index}` }],
  });
  const reply: Message = {
    role: 'assistant',
    content: [
      { type: 'text', text: 'I will read the file and then edit it. '.repeat(3) },
      { type: 'tool_use', id: `toolu_${index}`, name: 'read_file', input: { path: 'src/foo.ts' } },
    ],
  };
  writer.assistantMessage(
    reply,
    { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 10_000, cacheWriteTokens: 0 },
    'claude-sonnet-4-5',
  );
  writer.toolResults({
    role: 'user',
    content: [{ type: 'tool_result', callId: `toolu_${index}`, output: 'line\n'.repeat(60), isError: false }],
  });
}

/**
 * Session log figures against raw appends of the same lines to another file
 * in the same directory and run, with and without fsync.
 */
export async function benchSessions(): Promise<SessionFigures> {
  const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-session-bench-')));
  try {
    // A 100,000-event session, written by the writer as the engine would.
    const big = await createSessionWriter(
      { workspace, model: 'claude-sonnet-4-5', policy: 'execute' },
      { sync: 'close' },
    );
    for (let i = 0; i < Math.ceil(LOAD_EVENTS / CYCLE_EVENTS); i++) logCycle(big, i);
    await big.close();
    // Alternating with the baseline (read + JSON.parse of every line), so both see the same machine.
    const loads: number[] = [];
    const parses: number[] = [];
    for (let round_ = 0; round_ < LOAD_ROUNDS; round_++) {
      let start = performance.now();
      const parsed = await parseLines(big.file);
      parses.push(performance.now() - start);
      if (parsed < LOAD_EVENTS) throw new Error(`parsed ${parsed} events`);
      start = performance.now();
      const session = await loadSession(big.file);
      loads.push(performance.now() - start);
      if (session.events.length < LOAD_EVENTS) throw new Error(`loaded ${session.events.length} events`);
    }

    const burst = {
      session: [] as number[],
      nosync: [] as number[],
      raw: [] as number[],
      calls: [] as number[],
    };
    let lines: Buffer[] = [];
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      for (const sync of ['batch', 'close'] as const) {
        const writer = await createSessionWriter({ workspace, model: 'm', policy: 'execute' }, { sync });
        const start = performance.now();
        for (let i = 0; i < BURST_EVENTS / CYCLE_EVENTS; i++) {
          const call = process.hrtime.bigint();
          logCycle(writer, i);
          if (i % 50 === 0) burst.calls.push(microsSince(call) / CYCLE_EVENTS);
        }
        await writer.close();
        (sync === 'batch' ? burst.session : burst.nosync).push(
          BURST_EVENTS / ((performance.now() - start) / 1000),
        );
        if (sync === 'close') lines = await linesOf(writer.file);
      }
      burst.raw.push(
        lines.length / ((await rawAppend(path.join(workspace, 'raw.jsonl'), lines, false)) / 1000),
      );
    }

    const paced = { session: [] as number[], raw: [] as number[], fsync: [] as number[] };
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      const writer = await createSessionWriter({ workspace, model: 'm', policy: 'execute' });
      const start = performance.now();
      for (let i = 0; i < PACED_EVENTS; i++) {
        writer.userMessage({ role: 'user', content: [{ type: 'text', text: `prompt ${i}` }] });
        await writer.flush();
      }
      paced.session.push(PACED_EVENTS / ((performance.now() - start) / 1000));
      await writer.close();
      const sample = (await linesOf(writer.file)).slice(0, PACED_EVENTS);
      paced.raw.push(
        sample.length /
          ((await rawAppend(path.join(workspace, 'raw-sync.jsonl'), sample, true, paced.fsync)) / 1000),
      );
    }

    const session = median(burst.session);
    const raw = median(burst.raw);
    const durable = median(paced.session);
    const rawDurable = median(paced.raw);
    return {
      session_load_100k_ms: round(median(loads)),
      session_load_100k_mb: round((await stat(big.file)).size / 1e6),
      json_parse_100k_ms: round(median(parses)),
      session_load_vs_json_parse: round(median(loads) / median(parses), 2),
      session_append_per_s: Math.round(session),
      session_append_nosync_per_s: Math.round(median(burst.nosync)),
      raw_append_per_s: Math.round(raw),
      session_append_vs_raw: round(session / raw, 2),
      session_durable_append_per_s: Math.round(durable),
      raw_durable_append_per_s: Math.round(rawDurable),
      session_durable_vs_raw: round(durable / rawDurable, 2),
      fsync_cost_ms: round(median(paced.fsync), 2),
      fsync_p99_ms: round(quantile(paced.fsync, 0.99), 2),
      session_append_call_us: round(median(burst.calls), 2),
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

/** The floor under loadSession: read the file, JSON.parse each event line, keep the values. */
async function parseLines(file: string): Promise<number> {
  const text = await readFile(file, 'utf8');
  const values: unknown[] = [];
  for (let start = text.indexOf('\n') + 1, end = text.indexOf('\n', start); end !== -1; ) {
    values.push(JSON.parse(text.slice(start, end)));
    start = end + 1;
    end = text.indexOf('\n', start);
  }
  return values.length;
}

/** The event lines of a session file (the header left out), as bytes. */
async function linesOf(file: string): Promise<Buffer[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .slice(1, -1)
    .map((line) => Buffer.from(`${line}\n`));
}

/** Appends each line with its own awaited write (and fdatasync); returns the milliseconds taken. */
async function rawAppend(
  file: string,
  lines: readonly Buffer[],
  sync: boolean,
  syncTimes?: number[],
): Promise<number> {
  const handle = await open(file, 'a');
  try {
    const start = performance.now();
    for (const line of lines) {
      await handle.write(line);
      if (sync) {
        const before = performance.now();
        await handle.datasync();
        syncTimes?.push(performance.now() - before);
      }
    }
    if (!sync) await handle.datasync();
    return performance.now() - start;
  } finally {
    await handle.close();
    await rm(file, { force: true });
  }
}
