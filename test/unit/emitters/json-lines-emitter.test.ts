import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createJsonLinesEmitter } from '../../../harness/emitters/json-lines-emitter.js';
import { EngineEvent } from '../../../shared/engine-events.js';

/** A Writable that records each write; `delayMs` makes it slow, so backpressure kicks in. */
function sink(options: { delayMs?: number; highWaterMark?: number; fail?: NodeJS.ErrnoException } = {}) {
  const chunks: string[] = [];
  const stream = new Writable({
    highWaterMark: options.highWaterMark ?? 16 * 1024,
    write(chunk: Buffer, _encoding, callback) {
      if (options.fail) return callback(options.fail);
      chunks.push(chunk.toString('utf8'));
      if (options.delayMs) setTimeout(callback, options.delayMs);
      else callback();
    },
  });
  return { stream, chunks, text: () => chunks.join('') };
}

const delta = (i: number): EngineEvent => ({ type: 'text_delta', agent: [], text: `d${i} "quoted" ✓\n` });

describe('createJsonLinesEmitter', () => {
  it('writes one valid JSON event per line, batched, in order', async () => {
    const out = sink();
    const emitter = createJsonLinesEmitter(out.stream);
    for (let i = 0; i < 1_000; i++) emitter.emit(delta(i));
    emitter.emit({ type: 'turn_end', agent: ['sub'], turn: 1, reason: 'complete' });
    await emitter.flush();
    const lines = out.text().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(1_001);
    const events = lines.map((line) => EngineEvent.parse(JSON.parse(line)));
    expect(events.slice(0, 1_000)).toEqual(Array.from({ length: 1_000 }, (_, i) => delta(i)));
    expect(events[1_000]).toMatchObject({ type: 'turn_end', agent: ['sub'] });
    // Far fewer writes than events.
    expect(out.chunks.length).toBeLessThan(10);
  });

  it('writes on the next turn of the event loop without a flush', async () => {
    const out = sink();
    const emitter = createJsonLinesEmitter(out.stream);
    emitter.emit(delta(1));
    expect(out.chunks).toHaveLength(0);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.text()).toBe(`${JSON.stringify(delta(1))}\n`);
  });

  it('keeps every event and their order through backpressure', async () => {
    const out = sink({ delayMs: 1, highWaterMark: 1024 });
    const emitter = createJsonLinesEmitter(out.stream, { chunkChars: 512 });
    for (let i = 0; i < 5_000; i++) {
      emitter.emit(delta(i));
      if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await emitter.flush();
    const texts = out
      .text()
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { text: string }).text);
    expect(texts).toEqual(
      Array.from({ length: 5_000 }, (_, i) => delta(i)).map((event) => (event as { text: string }).text),
    );
  });

  it('turns into a no-op on EPIPE instead of throwing', async () => {
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    const out = sink({ fail: epipe });
    const emitter = createJsonLinesEmitter(out.stream);
    emitter.emit(delta(1));
    await emitter.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(emitter.closed).toBe(true);
    expect(() => {
      for (let i = 0; i < 100_000; i++) emitter.emit(delta(i));
    }).not.toThrow();
    await expect(emitter.flush()).resolves.toBeUndefined();
  });

  it('turns into a no-op on a destroyed or ended stream', async () => {
    const destroyed = sink();
    destroyed.stream.destroy();
    const first = createJsonLinesEmitter(destroyed.stream);
    first.emit(delta(1));
    await first.flush();
    expect(first.closed).toBe(true);

    const ended = sink();
    const second = createJsonLinesEmitter(ended.stream);
    second.emit(delta(1));
    await second.flush();
    ended.stream.end();
    second.emit(delta(2));
    await second.flush();
    expect(ended.text()).toBe(`${JSON.stringify(delta(1))}\n`);
  });

  it('lets go of the stream on close, after writing what was buffered', async () => {
    const out = sink();
    const listeners = (): number => out.stream.listenerCount('error') + out.stream.listenerCount('close');
    const before = listeners();
    const emitter = createJsonLinesEmitter(out.stream);
    emitter.emit(delta(1));
    await emitter.close();
    expect(out.text()).toBe(`${JSON.stringify(delta(1))}\n`);
    expect(listeners()).toBe(before);
    emitter.emit(delta(2));
    await emitter.flush();
    expect(out.chunks).toHaveLength(1);
  });
});
