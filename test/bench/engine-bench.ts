import { Writable } from 'node:stream';
import { createJsonLinesEmitter } from '../../harness/emitters/json-lines-emitter.js';
import { createCommandInbox } from '../../harness/engine/command-inbox.js';
import { Engine } from '../../harness/engine/engine.js';
import type { ToolHost } from '../../harness/engine/engine-types.js';
import type { ModelProvider, ProviderEvent } from '../../harness/provider/model-provider.js';
import { median, round } from './stats.js';

const DELTAS = 300_000;
const ROUNDS = 5;
/** Token-sized pieces, some needing JSON escapes, as a model's reply streams them. */
const PIECES = ['The ', 'quick', ' brown', ' fox', ' "jumps"', ' over', '\n', ' the', ' lazy', ' dog.\t'];

export interface TextDeltaFigures {
  text_deltas_per_s: number;
  direct_lines_per_s: number;
  /** Engine throughput over the baseline's: 1 would mean the engine costs nothing. */
  text_delta_vs_direct: number;
}

/**
 * Text deltas per second through the whole path (provider stream → engine →
 * stream-json emitter → a discarding sink), against a baseline that writes
 * the same JSON lines straight to the same kind of sink, one write per line,
 * as a naive stream-json writer would. Rounds alternate between the two so
 * both see the same machine state; each figure is the median of its rounds.
 */
export async function benchTextDeltas(count = DELTAS, rounds = ROUNDS): Promise<TextDeltaFigures> {
  await runEngine(Math.min(count, 20_000));
  runDirect(Math.min(count, 20_000));
  const engineRates: number[] = [];
  const directRates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    engineRates.push(await runEngine(count));
    directRates.push(runDirect(count));
  }
  const engine = median(engineRates);
  const direct = median(directRates);
  return {
    text_deltas_per_s: Math.round(engine),
    direct_lines_per_s: Math.round(direct),
    text_delta_vs_direct: round(engine / direct, 3),
  };
}

/** Deltas per second for one engine run. */
async function runEngine(count: number): Promise<number> {
  const sink = discardingSink();
  const emitter = createJsonLinesEmitter(sink.stream);
  const started = process.hrtime.bigint();
  const outcome = await new Engine().run(
    {
      provider: streamingProvider(count),
      tools: noTools,
      inbox: createCommandInbox().inbox,
      signal: new AbortController().signal,
    },
    { prompt: { text: 'Write a lot.' }, model: 'bench', maxTokens: 64_000, maxTurns: 1, approval: 'auto' },
    emitter,
  );
  await emitter.flush();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (outcome.status !== 'complete') throw new Error(`bench run ended ${outcome.status}: ${outcome.error}`);
  // Deltas plus the handful of per-turn events: every line must have reached the sink.
  if (sink.lines() < count) throw new Error(`only ${sink.lines()} of ${count} lines reached the sink`);
  return count / seconds;
}

/** Lines per second writing the same text_delta lines directly. */
function runDirect(count: number): number {
  const sink = discardingSink();
  const agent: string[] = [];
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    sink.stream.write(`${JSON.stringify({ type: 'text_delta', agent, text: PIECES[i % PIECES.length] })}\n`);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (sink.lines() !== count) throw new Error(`direct: ${sink.lines()} of ${count} lines written`);
  return count / seconds;
}

/** A provider that streams `count` deltas of one text block, as the real one does for a long reply. */
function streamingProvider(count: number): ModelProvider {
  return {
    name: 'bench',
    contextWindow: () => 200_000,
    async *stream(): AsyncGenerator<ProviderEvent> {
      let text = '';
      for (let i = 0; i < count; i++) {
        const piece = PIECES[i % PIECES.length]!;
        text += piece;
        yield { type: 'text_delta', index: 0, text: piece };
      }
      const block = { type: 'text' as const, text };
      yield { type: 'block_done', index: 0, block };
      yield {
        type: 'message_done',
        message: { role: 'assistant', content: [block] },
        stopReason: 'end_turn',
        usage: { inputTokens: 10, outputTokens: count, cacheReadTokens: 0, cacheWriteTokens: 0 },
      };
    },
  };
}

const noTools: ToolHost = {
  listTools: async () => [],
  callTool: async (name) => ({ output: `no tool ${name}`, isError: true, code: 'unknown_tool' }),
};

/** A Writable that only counts newlines: the cheapest honest sink for both sides. */
function discardingSink(): { stream: Writable; lines(): number } {
  let lines = 0;
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
      callback();
    },
  });
  return { stream, lines: () => lines };
}
