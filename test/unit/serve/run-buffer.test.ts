import { describe, expect, it } from 'vitest';
import { RunBuffer } from '../../../harness/serve/run-buffer.js';
import type { StreamMessage } from '../../../shared/serve-api.js';

const text = (value: string): StreamMessage => ({ type: 'text_delta', agent: [], text: value });

describe('RunBuffer', () => {
  it('numbers messages from the first id and reads what came after an id', () => {
    const run = new RunBuffer('run_1', 11, 100);
    expect(run.lastId).toBe(10);
    for (const word of ['a', 'b', 'c']) run.push(text(word));
    expect(run.lastId).toBe(13);
    const all = run.read(10);
    expect(all).toMatchObject({ gone: false, ended: false });
    expect(all.gone ? [] : all.entries.map((entry) => entry.id)).toEqual([11, 12, 13]);
    const after = run.read(12);
    expect(after.gone ? [] : after.entries.map((entry) => entry.message)).toEqual([text('c')]);
    // An id from an earlier run reads from this run's start (the session decides whether that is allowed).
    const earlier = run.read(3);
    expect(earlier.gone ? -1 : earlier.entries.length).toBe(3);
    expect(run.read(13)).toEqual({ gone: false, entries: [], ended: false });
  });

  it('keeps the last `limit` messages and says when a reader asks for dropped ones', () => {
    const run = new RunBuffer('run_2', 1, 10);
    for (let index = 0; index < 40; index++) run.push(text(String(index)));
    expect(run.read(0)).toEqual({ gone: true });
    const tail = run.read(35);
    expect(tail.gone ? [] : tail.entries.map((entry) => entry.id)).toEqual([36, 37, 38, 39, 40]);
    // At least `limit` messages stay readable.
    const kept = run.read(30);
    expect(kept.gone).toBe(false);
  });

  it('wakes a waiting reader at the next push and at the end, and refuses pushes after it', async () => {
    const run = new RunBuffer('run_3', 1, 10);
    let woken = 0;
    const waiting = run.changed().then(() => woken++);
    expect(woken).toBe(0);
    run.push(text('x'));
    await waiting;
    expect(woken).toBe(1);
    const atEnd = run.changed();
    run.end();
    await atEnd;
    expect(run.isEnded).toBe(true);
    await run.changed();
    expect(run.read(1)).toEqual({ gone: false, entries: [], ended: true });
    expect(() => run.push(text('late'))).toThrow(/ended/);
  });
});
